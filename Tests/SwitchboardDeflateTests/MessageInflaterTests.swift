import SwitchboardDeflate
import Testing

struct MessageInflaterTests {
    /// Inflates one message given as compressed chunks, as the WebSocket layer does.
    func inflate(
        _ inflater: MessageInflater, _ chunks: [[UInt8]], limit: Int = 1 << 24
    ) throws(DeflateError)
        -> [UInt8]
    {
        var out: [UInt8] = []
        for chunk in chunks {
            var failure: DeflateError?
            chunk.withUnsafeBytes { raw in
                do throws(DeflateError) { try inflater.inflate(raw, limit: limit, into: &out) } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
        }
        try inflater.finishMessage(limit: limit, into: &out)
        return out
    }

    func compress(_ deflater: MessageDeflater, _ message: [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = []
        try message.withUnsafeBytes { try deflater.deflate($0, into: &out) }
        return out
    }

    /// Messages that exercise literals, back-references within a message and
    /// (with context takeover) back-references into earlier messages.
    static let messages: [[UInt8]] = {
        var generator = SystemRandomNumberGenerator()
        let random = (0..<3000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let json = Array(
            #"{"type":"message","session_id":"9f0e","seq":58,"body":"Hello there, how can I help?"}"#.utf8)
        return [
            json, json, [], Array(repeating: 0x41, count: 5000), random, json + json + json, Array("Hello".utf8),
            random,
        ]
    }()

    @Test(arguments: Array(8...15), [false, true])
    func roundTripsEveryWindowAndTakeoverCombination(windowBits: Int, noContextTakeover: Bool) throws {
        let deflater = try MessageDeflater(
            windowBits: windowBits, noContextTakeover: noContextTakeover, level: 6, memLevel: 8)
        let inflater = try MessageInflater(windowBits: windowBits, noContextTakeover: noContextTakeover)
        for (index, message) in Self.messages.enumerated() {
            let compressed = try compress(deflater, message)
            // Feed in uneven chunks so state must carry across inflate calls.
            let step = 1 + index * 7
            let chunks = stride(from: 0, to: compressed.count, by: step).map {
                Array(compressed[$0..<min($0 + step, compressed.count)])
            }
            #expect(try inflate(inflater, chunks) == message)
        }
    }

    /// A peer without context takeover may be decoded by a receiver with it, and
    /// a receiver that resets may decode a peer that resets.
    @Test func noContextTakeoverInflaterDecodesIndependentMessages() throws {
        let deflater = try MessageDeflater(windowBits: 15, noContextTakeover: true, level: 9, memLevel: 9)
        let inflater = try MessageInflater(windowBits: 15, noContextTakeover: true)
        for message in Self.messages {
            #expect(try inflate(inflater, [try compress(deflater, message)]) == message)
        }
    }

    /// RFC 7692 7.2.3.1-7.2.3.5: the worked examples all inflate to "Hello".
    @Test func rfcExamples() throws {
        let hello = Array("Hello".utf8)
        let shared = try MessageInflater(windowBits: 15, noContextTakeover: false)
        #expect(try inflate(shared, [[0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]]) == hello)
        #expect(try inflate(shared, [[0xF2, 0x00, 0x11, 0x00, 0x00]]) == hello)

        let stored = try MessageInflater(windowBits: 15, noContextTakeover: false)
        #expect(try inflate(stored, [[0x00, 0x05, 0x00, 0xFA, 0xFF, 0x48, 0x65, 0x6C, 0x6C, 0x6F, 0x00]]) == hello)

        // BFINAL set: the stream ends inside the message; the next must still work.
        let final = try MessageInflater(windowBits: 15, noContextTakeover: false)
        #expect(try inflate(final, [[0xF3, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00, 0x00]]) == hello)
        #expect(try inflate(final, [[0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]]) == hello)

        let twoBlocks = try MessageInflater(windowBits: 15, noContextTakeover: false)
        let blocks: [UInt8] = [0xF2, 0x48, 0x05, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xCA, 0xC9, 0xC9, 0x07, 0x00]
        #expect(try inflate(twoBlocks, [blocks]) == hello)
    }

    @Test func decompressionBombStopsAtTheLimit() throws {
        let deflater = try MessageDeflater(windowBits: 15, noContextTakeover: false, level: 9, memLevel: 9)
        let bomb = try compress(deflater, Array(repeating: 0, count: 10_000_000))
        #expect(bomb.count < 20_000)
        let inflater = try MessageInflater(windowBits: 15, noContextTakeover: false)
        var out: [UInt8] = []
        let limit = 65536
        #expect(throws: DeflateError.tooLarge) {
            try bomb.withUnsafeBytes { try inflater.inflate($0, limit: limit, into: &out) }
        }
        // Inflation stopped right past the limit, never near the 10 MB.
        #expect(out.count <= limit + 1)
        #expect(out.capacity < 4 * limit)
    }

    @Test func messageExactlyAtTheLimitPasses() throws {
        let message = Array(repeating: UInt8(7), count: 1000)
        let deflater = try MessageDeflater(windowBits: 15, noContextTakeover: false, level: 6, memLevel: 8)
        let inflater = try MessageInflater(windowBits: 15, noContextTakeover: false)
        let compressed = try compress(deflater, message)
        #expect(try inflate(inflater, [compressed], limit: 1000) == message)
        let second = try compress(deflater, message)
        #expect(throws: DeflateError.tooLarge) { try inflate(inflater, [second], limit: 999) }
    }

    @Test(arguments: [
        [0xFF, 0xFF, 0xFF, 0xFF] as [UInt8],
        [0x07, 0x00],  // reserved block type 3
        [0x00, 0x05, 0x00, 0x00, 0x00],  // stored block whose NLEN is not ~LEN
    ])
    func corruptDataIsReported(_ bytes: [UInt8]) throws {
        let inflater = try MessageInflater(windowBits: 15, noContextTakeover: false)
        #expect(throws: DeflateError.corrupt) { try inflate(inflater, [bytes]) }
    }

    @Test func distanceBeyondTheWindowIsCorrupt() throws {
        // A fixed-Huffman block whose first symbol is a back-reference with no history.
        let deflater = try MessageDeflater(windowBits: 15, noContextTakeover: false, level: 6, memLevel: 8)
        _ = try compress(deflater, Array("abcdefgh".utf8))
        let refersBack = try compress(deflater, Array("abcdefgh".utf8))
        let fresh = try MessageInflater(windowBits: 15, noContextTakeover: false)
        #expect(throws: DeflateError.corrupt) { try inflate(fresh, [refersBack]) }
    }
}
