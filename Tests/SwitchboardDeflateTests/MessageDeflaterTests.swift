import CZlib
import SwitchboardDeflate
import Testing

struct MessageDeflaterTests {
    func compress(_ deflater: MessageDeflater, _ message: [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = []
        try message.withUnsafeBytes { try deflater.deflate($0, into: &out) }
        return out
    }

    /// RFC 7692 7.2.3.1 and 7.2.3.2: "Hello" compressed, then again sharing the window.
    @Test func rfcHelloExamples() throws {
        let deflater = try MessageDeflater(windowBits: 15, noContextTakeover: false, level: 6, memLevel: 8)
        #expect(try compress(deflater, Array("Hello".utf8)) == [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])
        #expect(try compress(deflater, Array("Hello".utf8)) == [0xF2, 0x00, 0x11, 0x00, 0x00])
    }

    @Test func noContextTakeoverCompressesEachMessageAlone() throws {
        let deflater = try MessageDeflater(windowBits: 15, noContextTakeover: true, level: 6, memLevel: 8)
        let first = try compress(deflater, Array("Hello".utf8))
        let second = try compress(deflater, Array("Hello".utf8))
        #expect(first == [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])
        #expect(second == first)
    }

    @Test func stripsTheSyncFlushTail() throws {
        let deflater = try MessageDeflater(windowBits: 15, noContextTakeover: false, level: 6, memLevel: 8)
        let out = try compress(deflater, Array(repeating: 0x61, count: 10_000))
        #expect(!out.isEmpty)
        #expect(Array(out.suffix(4)) != [0x00, 0x00, 0xFF, 0xFF])
        #expect(out.count < 100)
    }

    @Test func emptyMessage() throws {
        let deflater = try MessageDeflater(windowBits: 15, noContextTakeover: false, level: 6, memLevel: 8)
        let out = try compress(deflater, [])
        // Whatever it is, it must inflate back to nothing.
        let inflater = try MessageInflater(windowBits: 15, noContextTakeover: false)
        var plain: [UInt8] = []
        try out.withUnsafeBytes { try inflater.inflate($0, limit: 10, into: &plain) }
        try inflater.finishMessage(limit: 10, into: &plain)
        #expect(plain.isEmpty)
    }

    /// RFC 7692 7.1.2: every window size from 8 to 15 may be negotiated; what
    /// each compresses must inflate, with the same window, to the message.
    @Test(arguments: 8...15)
    func everyWindowSizeRoundTrips(bits: Int) throws {
        let deflater = try MessageDeflater(windowBits: bits, noContextTakeover: false, level: 6, memLevel: 8)
        let inflater = try MessageInflater(windowBits: bits, noContextTakeover: false)
        let message = Array(String(repeating: "switchboard window \(bits); ", count: 100).utf8)
        for _ in 0..<2 {  // the second message uses the window the first one left
            let compressed = try compress(deflater, message)
            #expect(compressed.count < message.count / 4, "a repetitive message compresses")
            var plain: [UInt8] = []
            try compressed.withUnsafeBytes { try inflater.inflate($0, limit: 1 << 20, into: &plain) }
            try inflater.finishMessage(limit: 1 << 20, into: &plain)
            #expect(plain == message)
        }
    }

    /// With server_max_window_bits=8 the output must decode with a real 256-byte
    /// window, even when the decoder's output arrives in small pieces (so nothing
    /// outside the window can be reached through the output buffer).
    @Test func windowEightDecodesWithATrue256ByteWindow() throws {
        // Pseudo-random letters repeating every 400 bytes: the best match is always
        // 400 bytes back, beyond a 256-byte window plus the 16-byte output step.
        var seed: UInt32 = 12345
        let period: [UInt8] = (0..<400).map { _ in
            seed = seed &* 1_103_515_245 &+ 12345
            return UInt8(ascii: "a") + UInt8((seed >> 16) % 13)
        }
        let message = Array(repeating: period, count: 20).flatMap { $0 }
        let deflater = try MessageDeflater(windowBits: 8, noContextTakeover: false, level: 9, memLevel: 9)
        // Two messages, so references into the previous message are covered too.
        let compressed = try (0..<2).map { _ in try compress(deflater, message) + [0x00, 0x00, 0xFF, 0xFF] }
        #expect(compressed.allSatisfy { $0.count < message.count })
        #expect(try rawInflate(compressed, windowBits: 8, outputStep: 16) == [message, message])
    }

    /// Plain zlib raw inflate of consecutive messages on one stream with an exact
    /// window, independent of MessageInflater.
    func rawInflate(_ messages: [[UInt8]], windowBits: Int32, outputStep: Int) throws -> [[UInt8]] {
        var stream = z_stream()
        try #require(czlib_inflateInit2(&stream, -windowBits) == Z_OK)
        defer { inflateEnd(&stream) }
        var piece = [UInt8](repeating: 0, count: outputStep)
        var results: [[UInt8]] = []
        for message in messages {
            var input = message
            var output: [UInt8] = []
            try input.withUnsafeMutableBufferPointer { inBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = UInt32(inBuffer.count)
                while true {
                    let status = piece.withUnsafeMutableBufferPointer { outBuffer in
                        stream.next_out = outBuffer.baseAddress
                        stream.avail_out = UInt32(outputStep)
                        return inflate(&stream, Z_SYNC_FLUSH)
                    }
                    try #require(status == Z_OK || status == Z_BUF_ERROR, "zlib status \(status)")
                    let produced = outputStep - Int(stream.avail_out)
                    output += piece[..<produced]
                    if stream.avail_in == 0 && produced < outputStep { break }
                }
            }
            results.append(output)
        }
        return results
    }
}
