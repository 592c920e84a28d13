import SwitchboardSystem

/// Where the NATS server listens, from a `nats://host:port` URL. The host is
/// an IPv4 literal or `localhost` (the client resolves no names: the server
/// runs next to the gateway or at a fixed address); the port defaults to
/// NATS's 4222. The scheme may be left out; TLS (`tls://`), credentials and
/// paths are refused rather than ignored.
public struct NATSAddress: Sendable, Equatable {
    public static let defaultPort: UInt16 = 4222

    public let host: String
    public let port: UInt16

    public init(parsing url: String) throws(NATSError) {
        var rest = Substring(url)
        if let scheme = rest.firstRange(of: "://") {
            guard rest[..<scheme.lowerBound].lowercased() == "nats" else {
                throw Self.invalid(url, "the scheme must be nats://")
            }
            rest = rest[scheme.upperBound...]
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains("@") else { throw Self.invalid(url, "credentials are not supported") }
        guard !rest.contains("/") else { throw Self.invalid(url, "a path is not allowed") }

        let host: Substring
        var port = Self.defaultPort
        if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            guard let parsed = UInt16(rest[rest.index(after: colon)...]), parsed > 0 else {
                throw Self.invalid(url, "the port must be a number from 1 to 65535")
            }
            port = parsed
        } else {
            host = rest
        }
        guard host == "localhost" || Self.isIPv4(host) else {
            throw Self.invalid(url, "the host must be an IPv4 address or localhost")
        }
        self.host = String(host)
        self.port = port
    }

    /// The address to connect to.
    var socketAddress: SocketAddress {
        SocketAddress(host: host == "localhost" ? "127.0.0.1" : host, port: port, family: .inet)
    }

    /// Dotted quad, each part a decimal from 0 to 255 (what inet_pton accepts).
    private static func isIPv4(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                part.count <= 3 && part.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
                    && UInt8(part) != nil
            }
    }

    private static func invalid(_ url: String, _ reason: String) -> NATSError {
        NATSError(kind: .invalidAddress, message: "invalid NATS address '\(url)': \(reason)")
    }
}
