/// The client's clock, in milliseconds. Fixed for the gateway; the tests
/// shorten it to see a dead connection detected in a fraction of a second.
struct NATSTimings: Sendable {
    /// Silence after which the client PINGs the server.
    var pingInterval: UInt64 = 10_000
    /// Unanswered PINGs that make the connection dead.
    var maxOutstandingPings = 2
    /// From starting the TCP connect to the server's PONG after CONNECT.
    var handshakeTimeout: UInt64 = 5_000
    /// The wait before reconnecting, doubled after each failed attempt.
    var backoffMinimum: UInt64 = 50
    var backoffMaximum: UInt64 = 2_000
    /// How long `stop` waits for queued publications to be written and
    /// confirmed (a PING answered after them) before closing anyway.
    var stopGrace: UInt64 = 1_000

    static let standard = NATSTimings()
}
