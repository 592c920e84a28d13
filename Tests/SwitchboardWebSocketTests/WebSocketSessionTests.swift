import SwitchboardDeflate
import SwitchboardWebSocket
import Testing

struct WebSocketSessionTests {
    typealias Message = Transcript.Message

    // MARK: - Accepted input, at every split

    struct ValidCase: CustomTestStringConvertible, Sendable {
        var name: String
        var input: [UInt8]
        var messages: [(WebSocketOpcode, [UInt8])]
        var replies: [(WebSocketOpcode, [UInt8])] = []
        var outcome: WebSocketReceiveOutcome = .open
        var testDescription: String { name }
    }

    static let validCases: [ValidCase] = [
        ValidCase(name: "text", input: text("Hello"), messages: [(.text, Array("Hello".utf8))]),
        ValidCase(name: "empty text", input: text(""), messages: [(.text, [])]),
        ValidCase(
            name: "binary 300", input: clientFrame(0x2, Array(repeating: 0xAB, count: 300)),
            messages: [(.binary, Array(repeating: 0xAB, count: 300))]),
        ValidCase(
            name: "binary 65536", input: clientFrame(0x2, (0..<65536).map { UInt8(truncatingIfNeeded: $0) }),
            messages: [(.binary, (0..<65536).map { UInt8(truncatingIfNeeded: $0) })]),
        ValidCase(
            name: "two messages", input: text("a") + clientFrame(0x2, [1, 2]),
            messages: [(.text, [0x61]), (.binary, [1, 2])]),
        ValidCase(
            name: "fragmented text with a ping between fragments",
            input: text("Hel", fin: false) + clientFrame(0x9, [7, 7]) + clientFrame(0x0, Array("lo".utf8), fin: false)
                + clientFrame(0x0, []),
            messages: [(.text, Array("Hello".utf8))], replies: [(.pong, [7, 7])]),
        ValidCase(
            name: "code point split across fragments",
            input: clientFrame(0x1, [0x41, 0xF0, 0x9F], fin: false) + clientFrame(0x0, [0x98], fin: false)
                + clientFrame(0x0, [0x80, 0x42]),
            messages: [(.text, [0x41, 0xF0, 0x9F, 0x98, 0x80, 0x42])]),
        ValidCase(
            name: "ping", input: clientFrame(0x9, Array("ping!".utf8)), messages: [],
            replies: [(.pong, Array("ping!".utf8))]),
        ValidCase(
            name: "125-byte ping", input: clientFrame(0x9, Array(repeating: 1, count: 125)), messages: [],
            replies: [(.pong, Array(repeating: 1, count: 125))]),
        ValidCase(name: "unsolicited pong", input: clientFrame(0xA, [1]) + text("x"), messages: [(.text, [0x78])]),
        ValidCase(
            name: "close 1000 with reason", input: clientFrame(0x8, [0x03, 0xE8] + Array("bye".utf8)),
            messages: [], replies: [(.close, [0x03, 0xE8])], outcome: .closing),
        ValidCase(
            name: "empty close", input: clientFrame(0x8, []), messages: [], replies: [(.close, [])],
            outcome: .closing),
        ValidCase(
            name: "data after close is ignored", input: clientFrame(0x8, [0x0F, 0xA0]) + text("late"),
            messages: [], replies: [(.close, [0x0F, 0xA0])], outcome: .closing),
        ValidCase(
            name: "empty fragments",
            input: clientFrame(0x2, [], fin: false) + clientFrame(0x0, [], fin: false)
                + clientFrame(0x0, [9]), messages: [(.binary, [9])]),
    ]

    @Test(arguments: validCases)
    func acceptsAtEverySplit(_ testCase: ValidCase) {
        let expectedMessages = testCase.messages.map { Message(opcode: $0.0, payload: $0.1) }
        for reads in splits(of: testCase.input) {
            let transcript = run(reads)
            #expect(transcript.messages == expectedMessages)
            #expect(transcript.sentFrames.map(\.opcode) == testCase.replies.map(\.0))
            #expect(transcript.sentFrames.map(\.payload) == testCase.replies.map(\.1))
            #expect(transcript.outcome == testCase.outcome)
        }
    }

    // MARK: - Rejected input, with the exact close code

    struct InvalidCase: CustomTestStringConvertible, Sendable {
        var name: String
        var input: [UInt8]
        var closeCode: UInt16
        var deflate: DeflateParameters? = nil
        var delivered: Int = 0
        var testDescription: String { name }
    }

    static let invalidCases: [InvalidCase] = [
        InvalidCase(name: "unmasked", input: clientFrame(0x1, [0x41], masked: false), closeCode: 1002),
        InvalidCase(name: "RSV1 without deflate", input: clientFrame(0x1, [0x41], rsv1: true), closeCode: 1002),
        InvalidCase(name: "RSV2", input: clientFrame(0x1, [0x41], rsv2: true), closeCode: 1002),
        InvalidCase(name: "RSV3", input: clientFrame(0x1, [0x41], rsv3: true), closeCode: 1002),
        InvalidCase(
            name: "RSV1 on continuation",
            input: clientFrame(0x1, [], fin: false, rsv1: true)
                + clientFrame(0x0, [], rsv1: true), closeCode: 1002, deflate: DeflateParameters()),
        InvalidCase(
            name: "RSV1 on ping", input: clientFrame(0x9, [], rsv1: true), closeCode: 1002,
            deflate: DeflateParameters()),
        InvalidCase(name: "opcode 3", input: clientFrame(0x3, []), closeCode: 1002),
        InvalidCase(name: "opcode 7", input: clientFrame(0x7, []), closeCode: 1002),
        InvalidCase(name: "opcode 11", input: clientFrame(0xB, []), closeCode: 1002),
        InvalidCase(name: "opcode 15", input: clientFrame(0xF, []), closeCode: 1002),
        InvalidCase(name: "ping 126 bytes", input: clientFrame(0x9, Array(repeating: 0, count: 126)), closeCode: 1002),
        InvalidCase(name: "fragmented ping", input: clientFrame(0x9, [], fin: false), closeCode: 1002),
        InvalidCase(name: "fragmented close", input: clientFrame(0x8, [], fin: false), closeCode: 1002),
        InvalidCase(name: "continuation first", input: clientFrame(0x0, [0x41]), closeCode: 1002),
        InvalidCase(
            name: "continuation after complete message", input: text("a") + clientFrame(0x0, [0x41]),
            closeCode: 1002, delivered: 1),
        InvalidCase(
            name: "new text inside fragmented message", input: text("a", fin: false) + text("b"),
            closeCode: 1002),
        InvalidCase(
            name: "64-bit length high bit", input: [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4],
            closeCode: 1002),
        InvalidCase(name: "invalid UTF-8", input: clientFrame(0x1, [0xCE, 0xBA, 0xED, 0xA0, 0x80]), closeCode: 1007),
        InvalidCase(name: "text ends mid code point", input: clientFrame(0x1, [0x41, 0xE2, 0x82]), closeCode: 1007),
        InvalidCase(
            name: "fragmented text ends mid code point",
            input: clientFrame(0x1, [0x41], fin: false) + clientFrame(0x0, [0xE2, 0x82]), closeCode: 1007),
        InvalidCase(name: "close with 1-byte body", input: clientFrame(0x8, [0x03]), closeCode: 1002),
        InvalidCase(name: "close code 999", input: clientFrame(0x8, [0x03, 0xE7]), closeCode: 1002),
        InvalidCase(name: "close code 1005", input: clientFrame(0x8, [0x03, 0xED]), closeCode: 1002),
        InvalidCase(name: "close code 1015", input: clientFrame(0x8, [0x03, 0xF7]), closeCode: 1002),
        InvalidCase(name: "close code 2999", input: clientFrame(0x8, [0x0B, 0xB7]), closeCode: 1002),
        InvalidCase(name: "close code 5000", input: clientFrame(0x8, [0x13, 0x88]), closeCode: 1002),
        InvalidCase(
            name: "close reason not UTF-8", input: clientFrame(0x8, [0x03, 0xE8, 0xC0, 0xAF]), closeCode: 1007),
        InvalidCase(
            name: "message over the limit", input: clientFrame(0x2, Array(repeating: 0, count: 65537)),
            closeCode: 1009),
        InvalidCase(
            name: "fragments over the limit",
            input: clientFrame(0x2, Array(repeating: 0, count: 40000), fin: false)
                + clientFrame(0x0, Array(repeating: 0, count: 30000)), closeCode: 1009),
    ]

    @Test(arguments: invalidCases)
    func rejectsWithCloseCode(_ testCase: InvalidCase) {
        for reads in splits(of: testCase.input) {
            let transcript = run(reads, session: makeSession(deflate: testCase.deflate))
            #expect(transcript.closeCode == testCase.closeCode)
            #expect(transcript.outcome == .closing)
            #expect(transcript.messages.count == testCase.delivered)
            #expect(transcript.sentFrames.count == 1)
        }
    }

    // MARK: - Specific behaviour

    @Test func invalidUTF8FailsFastBeforeTheMessageEnds() {
        // The first fragment is already invalid; the rest never arrives.
        let transcript = run([clientFrame(0x1, [0x41, 0xFF], fin: false)])
        #expect(transcript.closeCode == 1007)
        // Also inside a frame whose tail has not arrived yet.
        let frame = clientFrame(0x1, [0x41, 0xC0] + Array(repeating: 0x41, count: 100))
        #expect(run([Array(frame[..<10])]).closeCode == 1007)
    }

    @Test func oversizedMessageFailsFromTheHeaderAlone() {
        let frame = clientFrame(0x2, Array(repeating: 0, count: 100_000))
        let transcript = run([Array(frame.prefix(14))])
        #expect(transcript.closeCode == 1009)
        let frameLimit = run(
            [Array(clientFrame(0x2, Array(repeating: 0, count: 600)).prefix(8))],
            session: makeSession(maxFrameBytes: 512))
        #expect(frameLimit.closeCode == 1009)
    }

    @Test func wholeFrameIsDeliveredInPlace() {
        let session = makeSession()
        var bytes = text("zero copy please")
        var inPlace = false
        bytes.withUnsafeMutableBytes { raw in
            _ = session.receive(
                raw,
                onMessage: { _, payload in
                    inPlace = payload.baseAddress == UnsafeRawPointer(raw.baseAddress! + 2 + 4)
                    #expect(String(decoding: payload, as: UTF8.self) == "zero copy please")
                }, send: { _ in })
        }
        #expect(inPlace)
    }

    @Test func serverInitiatedClose() {
        let session = makeSession()
        let close = session.encodeClose(code: 1001, reason: "going away")
        #expect(close == FrameEncoder.encodeClose(code: 1001, reason: "going away"))
        #expect(session.isClosing)
        var transcript = Transcript()
        feed(session, [text("ignored"), clientFrame(0x9, [1])], into: &transcript)
        #expect(transcript.messages.isEmpty)
        #expect(transcript.sent.isEmpty)  // no pong after our close
        #expect(transcript.outcome == .closing)
        feed(session, [clientFrame(0x8, [0x03, 0xE9])], into: &transcript)
        #expect(transcript.sent.isEmpty)  // the peer's reply is not answered again
        #expect(session.closeReceived)
        #expect(session.peerCloseCode == 1001)
    }

    @Test func nothingIsProcessedAfterFailure() {
        let session = makeSession()
        var transcript = Transcript()
        feed(session, [clientFrame(0x3, [])], into: &transcript)
        feed(session, [text("after")], into: &transcript)
        #expect(transcript.messages.isEmpty)
        #expect(transcript.sentFrames.count == 1)
        #expect(session.failure?.closeCode == 1002)
    }

    @Test func callbackMayCloseTheSession() {
        let session = makeSession()
        var transcript = Transcript()
        var bytes = text("first") + text("second")
        let outcome = bytes.withUnsafeMutableBytes { raw in
            session.receive(
                raw,
                onMessage: { opcode, payload in
                    transcript.messages.append(.init(opcode: opcode, payload: Array(payload)))
                    _ = session.encodeClose(code: 1003, reason: "no")
                }, send: { _ in })
        }
        #expect(transcript.messages.count == 1)
        #expect(outcome == .closing)
    }

    @Test func encodesUncompressedFrames() {
        let session = makeSession()
        #expect(session.encodeMessage(opcode: .text, payload: Array("hi".utf8)) == [0x81, 0x02, 0x68, 0x69])
        #expect(session.encodePing([1]) == [0x89, 0x01, 0x01])
    }

    /// Autobahn 9.x-sized traffic must take seconds at most, even in debug builds.
    @Test func largeMessageInSmallFrames() {
        let total = 1 << 20
        var stream: [UInt8] = []
        stream.reserveCapacity(total + total / 64 * 6 + 64)
        let chunk = Array(repeating: UInt8(ascii: "x"), count: 64)
        for index in 0..<(total / 64) {
            stream += clientFrame(index == 0 ? 0x1 : 0x0, chunk, fin: index == total / 64 - 1)
        }
        let session = makeSession(maxMessageBytes: total)
        var delivered = 0
        var bytes = stream
        let outcome = bytes.withUnsafeMutableBytes { raw in
            var offset = 0
            var outcome = WebSocketReceiveOutcome.open
            while offset < raw.count {  // 64 KiB reads, as a loop would do
                let end = min(offset + 65536, raw.count)
                outcome = session.receive(
                    UnsafeMutableRawBufferPointer(rebasing: raw[offset..<end]), onMessage: { delivered += $1.count },
                    send: { _ in })
                offset = end
            }
            return outcome
        }
        #expect(outcome == .open)
        #expect(delivered == total)
    }
}
