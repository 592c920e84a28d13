/// Compressors for the sessions of one event loop that negotiated
/// `server_no_context_takeover`. Such a compressor starts every message from
/// an empty window (it resets after each one, and after a failure), so one
/// per window size serves every such connection of the loop, and a session
/// holds no compressor of its own: about 256 KiB less per connection at
/// window 15 and memLevel 8. (Its decompressor stays its own.)
///
/// Not thread-safe: one instance belongs to one loop thread, and a message is
/// compressed whole before the next one starts.
public final class SharedDeflaters: @unchecked Sendable {
    private let compressionLevel: Int
    private let memLevel: Int
    /// Indexed by window bits (8...15); created on first use.
    private var deflaters: [MessageDeflater?] = Array(repeating: nil, count: 16)

    public init(configuration: DeflateConfiguration) {
        compressionLevel = configuration.compressionLevel
        memLevel = configuration.memLevel
    }

    /// How many compressors the loop holds (one per window size in use).
    public var count: Int { deflaters.reduce(0) { $0 + ($1 == nil ? 0 : 1) } }

    /// The loop's compressor for `windowBits`, or nil when zlib cannot create one.
    public func deflater(windowBits: Int) -> MessageDeflater? {
        precondition((8...15).contains(windowBits), "windowBits must be 8...15")
        if let existing = deflaters[windowBits] { return existing }
        let created = try? MessageDeflater(
            windowBits: windowBits, noContextTakeover: true, level: compressionLevel, memLevel: memLevel)
        deflaters[windowBits] = created
        return created
    }
}
