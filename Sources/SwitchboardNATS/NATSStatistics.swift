/// A snapshot of a client's counters, since it was created.
public struct NATSStatistics: Sendable, Equatable {
    /// Messages delivered to `onMessage`.
    public var messagesIn: Int
    /// Publications written to the socket in full (the server may still lose
    /// those in flight when the connection breaks: NATS core is at most once).
    public var messagesOut: Int
    /// Connections established after the first one.
    public var reconnects: Int
    /// Publications refused by `publish`: buffer full, payload over the
    /// server's maximum, invalid subject, or the client stopped.
    public var dropped: Int
}
