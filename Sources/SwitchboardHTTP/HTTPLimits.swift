/// Bounds on what one request may make the parser hold. Every buffer the parser
/// keeps is bounded by one of these, so a hostile client can cost at most
/// `maxRequestLineBytes + maxHeaderBytes + maxBodyBytes` per connection.
public struct HTTPLimits: Sendable, Equatable {
    /// The request line, without its line terminator. Over it: 414.
    public var maxRequestLineBytes: Int = 8192
    /// Header fields in the header section (and, separately, in a chunked trailer section). Over it: 431.
    public var maxHeaderCount: Int = 64
    /// Bytes of the header section including line terminators. Over it: 431.
    public var maxHeaderBytes: Int = 16384
    /// The decoded body. A Content-Length over it, or a chunked body growing over it: 413.
    public var maxBodyBytes: Int = 1 << 20
    /// One chunk-size line including its extensions. Over it: 400. Extensions carry
    /// nothing we use, so this only stops a client from streaming an endless line.
    public var maxChunkLineBytes: Int = 1024

    public init(
        maxRequestLineBytes: Int = 8192,
        maxHeaderCount: Int = 64,
        maxHeaderBytes: Int = 16384,
        maxBodyBytes: Int = 1 << 20,
        maxChunkLineBytes: Int = 1024
    ) {
        precondition(maxRequestLineBytes > 0 && maxHeaderCount >= 0 && maxHeaderBytes > 0)
        precondition(maxBodyBytes >= 0 && maxChunkLineBytes > 0)
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
        self.maxChunkLineBytes = maxChunkLineBytes
    }
}
