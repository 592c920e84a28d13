/// Where a client's connection stands, as reported to `onState`.
public enum NATSConnectionState: Sendable, Equatable {
    /// Not connected yet: the first connection is being attempted.
    case connecting
    /// The handshake is done (the server answered our PING after CONNECT and
    /// the subscriptions): publications flow.
    case connected
    /// A connection was lost and is being re-established (or the client was
    /// stopped). Attempts that fail do not report `connecting` again, so a
    /// loss is always seen as one `disconnected` followed by one `connected`.
    case disconnected
}
