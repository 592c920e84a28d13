/// The server's own permessage-deflate preferences, applied during negotiation
/// and when compressing outgoing messages.
public struct DeflateConfiguration: Sendable {
    /// When false every offer is declined and nothing is compressed.
    public var enabled: Bool
    /// Ask for `server_no_context_takeover` even when the client did not: the
    /// compressor then forgets its window after each message, so a loop's one
    /// compressor (`SharedDeflaters`) serves every such connection, which
    /// holds no compressor of its own. False here, as in RFC 7692; the
    /// gateway's configuration asks for it by default
    /// (`websocket.deflate.server_no_context_takeover`).
    public var serverNoContextTakeover: Bool
    /// The largest window the server compresses with (8...15). Smaller windows
    /// use less memory per connection and compress less.
    public var serverMaxWindowBits: Int
    /// zlib level, 0...9 (or -1 for zlib's default).
    public var compressionLevel: Int
    /// Messages shorter than this are sent uncompressed (RSV1 clear): for small
    /// payloads the deflate framing costs more than it saves.
    public var minimumCompressSize: Int
    /// zlib memLevel, 1...9: the compressor's hash table size.
    public var memLevel: Int

    public init(
        enabled: Bool = true,
        serverNoContextTakeover: Bool = false,
        serverMaxWindowBits: Int = 15,
        compressionLevel: Int = 6,
        minimumCompressSize: Int = 256,
        memLevel: Int = 8
    ) {
        precondition((8...15).contains(serverMaxWindowBits), "serverMaxWindowBits must be 8...15")
        precondition((-1...9).contains(compressionLevel), "compressionLevel must be -1...9")
        precondition((1...9).contains(memLevel), "memLevel must be 1...9")
        self.enabled = enabled
        self.serverNoContextTakeover = serverNoContextTakeover
        self.serverMaxWindowBits = serverMaxWindowBits
        self.compressionLevel = compressionLevel
        self.minimumCompressSize = max(0, minimumCompressSize)
        self.memLevel = memLevel
    }
}
