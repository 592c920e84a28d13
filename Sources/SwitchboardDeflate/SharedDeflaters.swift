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
    /// The last frame made from a message shared by several connections
    /// (fan-out). Without context takeover every connection with the same
    /// window gets the same bytes, so the message is compressed once, not once
    /// per subscriber. Holding `source` keeps its identity from being reused;
    /// the memo is replaced by the next shared message.
    private var memo: (source: AnyObject, windowBits: Int, kind: UInt8, frame: [UInt8])?

    public init(configuration: DeflateConfiguration) {
        compressionLevel = configuration.compressionLevel
        memLevel = configuration.memLevel
    }

    /// How many compressors the loop holds (one per window size in use).
    public var count: Int { deflaters.reduce(0) { $0 + ($1 == nil ? 0 : 1) } }

    /// The frame of kind `kind` (the caller's, e.g. an opcode) for `source`
    /// at `windowBits`: made by `make` (with this loop's compressor) the first
    /// time, the same bytes for every later connection.
    public func frame(sharing source: AnyObject, windowBits: Int, kind: UInt8, make: () -> [UInt8]) -> [UInt8] {
        if let memo, memo.source === source, memo.windowBits == windowBits, memo.kind == kind { return memo.frame }
        let frame = make()
        memo = (source, windowBits, kind, frame)
        return frame
    }

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
