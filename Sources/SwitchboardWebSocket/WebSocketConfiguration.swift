/// Limits applied by `WebSocketSession` to what a peer may send.
public struct WebSocketConfiguration: Sendable {
    /// The largest message (after reassembly and inflation) the peer may send;
    /// larger ones close the connection with 1009 (RFC 6455 7.4.1), detected from
    /// frame headers before anything is buffered where possible.
    public var maxMessageBytes: Int
    /// The largest single frame payload, or nil for "up to maxMessageBytes".
    public var maxFrameBytes: Int?

    public init(maxMessageBytes: Int = 65536, maxFrameBytes: Int? = nil) {
        precondition(maxMessageBytes >= 0, "maxMessageBytes must not be negative")
        self.maxMessageBytes = maxMessageBytes
        self.maxFrameBytes = maxFrameBytes
    }
}
