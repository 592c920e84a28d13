/// Why a NATS address, a connection or the server's bytes were refused. The
/// client recovers from every kind but `invalidAddress` by reconnecting;
/// errors reach the caller only from `NATSAddress(parsing:)` and the parser.
public struct NATSError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A `nats://host:port` URL that cannot be used.
        case invalidAddress
        /// The server sent something that is not the NATS protocol.
        case protocolViolation
        /// A control line or payload over the parser's limits.
        case limitExceeded
        /// The server answered -ERR while the connection was being set up.
        case server
        /// A system call failed, the server hung up, or it did not answer in time.
        case connection
    }

    public let kind: Kind
    public let message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
