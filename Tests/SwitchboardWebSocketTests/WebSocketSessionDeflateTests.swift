import SwitchboardDeflate
import SwitchboardWebSocket
import Testing

/// permessage-deflate inside the session (RFC 7692 6 and 7.2).
struct WebSocketSessionDeflateTests {
    static let json = Array(
        #"{"type":"send","session_id":"9f0e","client_msg_id":"5d6c","body":"Hello, is anyone there? I need help with my order."}"#
            .utf8)

    func compressedFrames(
        _ message: [UInt8], with deflater: MessageDeflater, opcode: UInt8 = 0x1, fragments: Int = 1
    ) -> [UInt8] {
        let payload = compress(deflater, message)
        let size = max(1, (payload.count + fragments - 1) / fragments)
        var frames: [UInt8] = []
        var start = 0
        var first = true
        repeat {
            let end = min(start + size, payload.count)
            frames += clientFrame(
                first ? opcode : 0x0, Array(payload[start..<end]), fin: end == payload.count, rsv1: first)
            first = false
            start = end
        } while start < payload.count
        return frames
    }

    @Test(arguments: [1, 3])
    func inflatesMessagesAtEverySplit(fragments: Int) throws {
        let deflater = try MessageDeflater(windowBits: 15, noContextTakeover: false, level: 6, memLevel: 8)
        // Context takeover: the second message refers back into the first.
        let input =
            compressedFrames(Self.json, with: deflater, fragments: fragments)
            + compressedFrames(Self.json, with: deflater, fragments: fragments)
            + text("plain")
        let expected = [
            Transcript.Message(opcode: .text, payload: Self.json), .init(opcode: .text, payload: Self.json),
            .init(opcode: .text, payload: Array("plain".utf8)),
        ]
        for reads in splits(of: input) {
            let transcript = run(reads, session: makeSession(deflate: DeflateParameters()))
            #expect(transcript.messages == expected)
            #expect(transcript.sent.isEmpty)
        }
    }

    @Test(arguments: [
        DeflateParameters(),
        DeflateParameters(clientNoContextTakeover: true),
        DeflateParameters(clientMaxWindowBits: 8),
        DeflateParameters(clientNoContextTakeover: true, clientMaxWindowBits: 9),
        DeflateParameters(clientMaxWindowBits: 12),
    ])
    func honoursNegotiatedClientParameters(_ parameters: DeflateParameters) throws {
        let deflater = try MessageDeflater(
            windowBits: parameters.clientMaxWindowBits, noContextTakeover: parameters.clientNoContextTakeover, level: 9,
            memLevel: 9)
        let session = makeSession(deflate: parameters)
        var transcript = Transcript()
        var messages: [[UInt8]] = []
        for index in 0..<20 {
            let message = Array(repeating: Self.json, count: index % 5 + 1).flatMap { $0 }
            messages.append(message)
            feed(
                session, [compressedFrames(message, with: deflater, opcode: 0x2, fragments: index % 3 + 1)],
                into: &transcript)
        }
        #expect(transcript.messages.map(\.payload) == messages)
        #expect(transcript.outcome == .open)
    }

    @Test func decompressionBombClosesWith1009() throws {
        let deflater = try MessageDeflater(windowBits: 15, noContextTakeover: false, level: 9, memLevel: 9)
        let bomb = compressedFrames(Array(repeating: 0x20, count: 10_000_000), with: deflater, opcode: 0x2)
        #expect(bomb.count < 20_000)
        let transcript = run([bomb], session: makeSession(deflate: DeflateParameters()))
        #expect(transcript.closeCode == 1009)
        #expect(transcript.messages.isEmpty)
    }

    @Test func corruptDataClosesWith1007() {
        let frame = clientFrame(0x2, [0xFF, 0xFF, 0xFF, 0xFF], rsv1: true)
        #expect(run([frame], session: makeSession(deflate: DeflateParameters())).closeCode == 1007)
    }

    @Test func compressedInvalidUTF8ClosesWith1007() throws {
        let deflater = try MessageDeflater(windowBits: 15, noContextTakeover: false, level: 6, memLevel: 8)
        let frame = compressedFrames([0x41, 0x42, 0xED, 0xA0, 0x80], with: deflater)
        #expect(run([frame], session: makeSession(deflate: DeflateParameters())).closeCode == 1007)
    }

    @Test func compressedMessageOverTheLimitFromHeaders() {
        let frame = clientFrame(0x2, Array(repeating: 0, count: 200_000), rsv1: true)
        let transcript = run([Array(frame.prefix(14))], session: makeSession(deflate: DeflateParameters()))
        #expect(transcript.closeCode == 1009)
    }

    @Test func encodesSmallMessagesUncompressed() {
        let session = makeSession(deflate: DeflateParameters())
        let frame = session.encodeMessage(opcode: .text, payload: Array("short".utf8))
        #expect(frame == FrameEncoder.encode(opcode: .text, payload: Array("short".utf8)))
    }

    @Test(arguments: [
        DeflateParameters(), DeflateParameters(serverNoContextTakeover: true),
        DeflateParameters(serverMaxWindowBits: 8),
        DeflateParameters(serverMaxWindowBits: 10),
    ])
    func encodesLargeMessagesCompressed(_ parameters: DeflateParameters) throws {
        let session = makeSession(deflate: parameters)
        let inflater = try MessageInflater(
            windowBits: parameters.serverMaxWindowBits, noContextTakeover: parameters.serverNoContextTakeover)
        let message = Array(repeating: Self.json, count: 4).flatMap { $0 }
        for _ in 0..<3 {
            let frame = session.encodeMessage(opcode: .text, payload: message)
            #expect(frame[0] == 0xC1)  // FIN, RSV1, text
            #expect(frame.count < message.count / 2)
            #expect(try Self.inflate(frame, with: inflater) == message)
        }
    }

    @Test("sessions without context takeover compress with their loop's one compressor, interleaved")
    func sessionsWithoutContextTakeoverShareTheLoopsCompressor() throws {
        let shared = SharedDeflaters(configuration: DeflateConfiguration())
        let parameters = DeflateParameters(serverNoContextTakeover: true)
        let first = makeSession(deflate: parameters, sharedDeflaters: shared)
        let second = makeSession(deflate: parameters, sharedDeflaters: shared)
        let one = Array(repeating: Self.json, count: 4).flatMap { $0 }
        let other = Array(repeating: Self.json.reversed(), count: 3).flatMap { $0 }
        let sends = [(first, one), (second, other), (first, other), (second, one), (first, one)]
        var frames: [[UInt8]] = []
        for (session, message) in sends {
            let frame = session.encodeMessage(opcode: .text, payload: message)
            #expect(frame[0] == 0xC1)
            // A fresh decompressor per frame: nothing may refer to an earlier message.
            let inflater = try MessageInflater(windowBits: 15, noContextTakeover: true)
            #expect(try Self.inflate(frame, with: inflater) == message)
            frames.append(frame)
        }
        #expect(frames[0] == frames[3] && frames[0] == frames[4])
        #expect(shared.count == 1)  // both sessions used the loop's, neither made its own
    }

    @Test("a message shared by many connections is compressed once per loop and window")
    func sharedMessagesAreCompressedOnce() throws {
        final class Source {}
        let shared = SharedDeflaters(configuration: DeflateConfiguration())
        let wide = DeflateParameters(serverNoContextTakeover: true)
        let narrow = DeflateParameters(serverNoContextTakeover: true, serverMaxWindowBits: 10)
        let first = makeSession(deflate: wide, sharedDeflaters: shared)
        let second = makeSession(deflate: wide, sharedDeflaters: shared)
        let third = makeSession(deflate: narrow, sharedDeflaters: shared)
        let message = Array(repeating: Self.json, count: 4).flatMap { $0 }
        let source = Source()

        let one = first.encodeMessage(opcode: .text, payload: message, sharedBy: source)
        let two = second.encodeMessage(opcode: .text, payload: message, sharedBy: source)
        // The same bytes, not a second compression of them.
        #expect(one.withUnsafeBufferPointer { $0.baseAddress } == two.withUnsafeBufferPointer { $0.baseAddress })
        #expect(try Self.inflate(two, with: MessageInflater(windowBits: 15, noContextTakeover: true)) == message)

        // Another window gets its own frame, which its peer can inflate.
        let three = third.encodeMessage(opcode: .text, payload: message, sharedBy: source)
        #expect(try Self.inflate(three, with: MessageInflater(windowBits: 10, noContextTakeover: true)) == message)

        // The next message is compressed anew.
        let other = Array(message.reversed())
        let next = first.encodeMessage(opcode: .text, payload: other, sharedBy: Source())
        #expect(try Self.inflate(next, with: MessageInflater(windowBits: 15, noContextTakeover: true)) == other)
    }

    @Test("a session with context takeover keeps its own compressor, whose window carries over")
    func contextTakeoverKeepsItsOwnCompressor() throws {
        let shared = SharedDeflaters(configuration: DeflateConfiguration())
        let session = makeSession(deflate: DeflateParameters(), sharedDeflaters: shared)
        let inflater = try MessageInflater(windowBits: 15, noContextTakeover: false)
        let message = Array(repeating: Self.json, count: 4).flatMap { $0 }
        final class Source {}
        let source = Source()
        let firstFrame = session.encodeMessage(opcode: .text, payload: message, sharedBy: source)
        let secondFrame = session.encodeMessage(opcode: .text, payload: message, sharedBy: source)
        #expect(try Self.inflate(firstFrame, with: inflater) == message)
        #expect(try Self.inflate(secondFrame, with: inflater) == message)
        #expect(secondFrame.count < firstFrame.count / 2)  // it refers back to the first message
        #expect(shared.count == 0)
    }

    /// The payload of one unmasked server frame, inflated.
    static func inflate(_ frame: [UInt8], with inflater: MessageInflater) throws -> [UInt8] {
        var frame = frame
        var decoder = FrameDecoder(requireMask: false)
        var payload: [UInt8] = []
        frame.withUnsafeMutableBytes { raw in
            var offset = 0
            while case .some(let event) = try? decoder.next(raw, offset: &offset) {
                if case .payload(let chunk, _) = event { payload += chunk } else if case .needMore = event { break }
            }
        }
        var inflated: [UInt8] = []
        try payload.withUnsafeBytes { try inflater.inflate($0, limit: 1 << 20, into: &inflated) }
        try inflater.finishMessage(limit: 1 << 20, into: &inflated)
        return inflated
    }
}
