import SwitchboardWebSocket
import Testing

/// FrameEncoder, FrameDecoder and WebSocketMask.
struct FrameCodecTests {
    /// Decodes `bytes` (split into the given reads) into headers and payloads.
    func decode(_ reads: [[UInt8]], requireMask: Bool = true) throws(WebSocketError) -> [(FrameHeader, [UInt8])] {
        var decoder = FrameDecoder(requireMask: requireMask)
        var frames: [(FrameHeader, [UInt8])] = []
        var current: FrameHeader?
        var payload: [UInt8] = []
        for read in reads {
            var bytes = read
            var failure: WebSocketError?
            bytes.withUnsafeMutableBytes { raw in
                var offset = 0
                do throws(WebSocketError) {
                    loop: while true {
                        switch try decoder.next(raw, offset: &offset) {
                        case .needMore: break loop
                        case .header(let header):
                            current = header
                            payload = []
                        case .payload(let chunk, let complete):
                            payload += chunk
                            if complete { frames.append((current!, payload)) }
                        }
                    }
                } catch { failure = error }
            }
            if let failure { throw failure }
        }
        return frames
    }

    @Test(arguments: [0, 1, 125, 126, 127, 65535, 65536, 70000])
    func encodeDecodeRoundTripAtLengthBoundaries(length: Int) throws {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let masked = FrameEncoder.encode(opcode: .binary, payload: payload, maskKey: 0xDEAD_BEEF)
        #expect(masked.count == FrameEncoder.headerLength(payloadLength: length, masked: true) + length)
        let frames = try decode([masked])
        #expect(frames.count == 1)
        #expect(frames[0].0.payloadLength == length)
        #expect(frames[0].0.maskKey == 0xDEAD_BEEF)
        #expect(frames[0].1 == payload)
        // Matches the independent test encoder byte for byte (up to the key).
        let unmasked = FrameEncoder.encode(opcode: .binary, payload: payload)
        #expect(unmasked == clientFrame(0x2, payload, masked: false))
        #expect(try decode([unmasked], requireMask: false)[0].1 == payload)
    }

    @Test func headerLengths() {
        #expect(FrameEncoder.headerLength(payloadLength: 125) == 2)
        #expect(FrameEncoder.headerLength(payloadLength: 126) == 4)
        #expect(FrameEncoder.headerLength(payloadLength: 65535) == 4)
        #expect(FrameEncoder.headerLength(payloadLength: 65536) == 10)
        #expect(FrameEncoder.headerLength(payloadLength: 0, masked: true) == 6)
    }

    @Test func writesHeaderBits() {
        let frame = FrameEncoder.encode(opcode: .text, fin: false, rsv1: true, payload: [1, 2, 3])
        #expect(frame == [0x41, 0x03, 1, 2, 3])
        #expect(FrameEncoder.encode(opcode: .continuation, payload: []) == [0x80, 0x00])
    }

    @Test func closeFrameTruncatesReasonAtCodePoint() {
        let reason = String(repeating: "é", count: 100)  // 200 bytes
        let frame = FrameEncoder.encodeClose(code: 1001, reason: reason)
        #expect(frame.count <= 2 + 125)
        #expect(Array(frame[2..<4]) == [0x03, 0xE9])
        #expect(UTF8Validator.isValid(Array(frame[4...])))
        #expect(FrameEncoder.encodeClose(code: nil) == [0x88, 0x00])
    }

    /// Every split of a stream of several frames decodes identically.
    @Test func decodesAtEverySplit() throws {
        let stream =
            clientFrame(0x1, Array("Hello".utf8)) + clientFrame(0x9, [1, 2, 3])
            + clientFrame(0x2, Array(repeating: 9, count: 300))
            + clientFrame(0x2, []) + clientFrame(0x2, Array(repeating: 7, count: 70000))
        let whole = try decode([stream])
        #expect(whole.map(\.1.count) == [5, 3, 300, 0, 70000])
        for reads in splits(of: stream) {
            let split = try decode(reads)
            #expect(split.map(\.0) == whole.map(\.0))
            #expect(split.map(\.1) == whole.map(\.1))
        }
    }

    @Test func maskAtEveryPhaseAndLength() {
        let key: UInt32 = 0x0403_0201
        for length in 0..<40 {
            for phase in 0..<4 {
                var bytes = [UInt8](repeating: 0, count: length)
                bytes.withUnsafeMutableBytes { WebSocketMask.apply(key: key, phase: phase, to: $0) }
                #expect(bytes == (0..<length).map { UInt8(1 + (($0 + phase) & 3)) })
            }
        }
    }

    @Test(arguments: [
        (clientFrame(0x1, [], masked: false), "client frame not masked"),
        (clientFrame(0x1, [], rsv2: true), "reserved bits set"),
        (clientFrame(0x1, [], rsv3: true), "reserved bits set"),
        (clientFrame(0x3, []), "reserved opcode"),
        (clientFrame(0x9, Array(repeating: 0, count: 126)), "control frame too long"),
        (clientFrame(0x9, [], fin: false), "fragmented control frame"),
        ([0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0], "64-bit length with high bit set"),
    ])
    func rejectsInvalidHeaders(frame: [UInt8], reason: String) {
        #expect(throws: WebSocketError.protocolError(reason)) { try decode([frame]) }
        // Also when the header arrives one byte at a time.
        #expect(throws: WebSocketError.protocolError(reason)) { try decode(frame.map { [$0] }) }
    }

    @Test func frameLimitFromHeaderAlone() {
        var decoder = FrameDecoder(requireMask: true, maxFrameBytes: 100)
        var header = Array(clientFrame(0x2, Array(repeating: 0, count: 101)).prefix(8))
        #expect(throws: WebSocketError.messageTooBig) {
            try header.withUnsafeMutableBytes { raw in
                var offset = 0
                _ = try decoder.next(raw, offset: &offset)
            }
        }
    }
}
