/// What the connection should do after `WebSocketSession.receive`.
public enum WebSocketReceiveOutcome: Equatable, Sendable {
    /// Keep reading.
    case open
    /// A close frame was sent (a reply, a failure, or our own earlier close):
    /// flush pending output, then close the TCP connection (RFC 6455 7.1.1: the
    /// server closes TCP first).
    case closing
}
