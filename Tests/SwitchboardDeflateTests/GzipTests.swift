import CZlib
import SwitchboardDeflate
import Testing

struct GzipTests {
    /// zlib's own gzip decoder (windowBits 31), which checks the trailer's CRC-32 and length.
    func gunzip(_ member: [UInt8]) throws -> [UInt8] {
        var stream = z_stream()
        try #require(czlib_inflateInit2(&stream, 15 + 16) == Z_OK)
        defer { inflateEnd(&stream) }
        var input = member
        var output = [UInt8](repeating: 0, count: 1 << 20)
        let (status, produced) = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = UInt32(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = UInt32(outBuffer.count)
                let status = inflate(&stream, Z_FINISH)
                return (status, outBuffer.count - Int(stream.avail_out))
            }
        }
        try #require(status == Z_STREAM_END, "inflate: \(status)")
        #expect(stream.avail_in == 0, "nothing after the member")
        return Array(output[..<produced])
    }

    @Test(arguments: [0, 1, 100, 70_000])
    func aMemberDecodesToTheInput(size: Int) throws {
        let text = Array(String(repeating: "const answer = await client.send(sessionId, body);\n", count: 2_000).utf8)
        let input = Array(text.prefix(size))
        let member = try Gzip.compress(input)
        // RFC 1952 2.3: ID1 ID2, CM 8 (deflate); ISIZE, the input's length, ends the member.
        #expect(Array(member.prefix(3)) == [0x1F, 0x8B, 0x08])
        let length = member.suffix(4).reversed().reduce(0) { $0 << 8 | Int($1) }
        #expect(length == input.count)
        #expect(try gunzip(member) == input)
        if size >= 70_000 { #expect(member.count < input.count / 20, "repetitive text compresses") }
    }

    @Test func incompressibleBytesStillFit() throws {
        var state: UInt32 = 0x9E37_79B9
        let noise = (0..<50_000).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        #expect(try gunzip(Gzip.compress(noise)) == noise)
    }
}
