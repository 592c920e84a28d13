import SwitchboardChat
import Testing

/// One refused frame: the ref the error must carry and words its message must contain.
struct Rejection: CustomTestStringConvertible, Sendable {
    var frame: String
    var ref: String?
    var mentions: String
    var code: ChatErrorCode = .badRequest

    var testDescription: String { frame }
}

private let id = sessionUUID

@Suite struct ClientFrameDecoderRejectTests {
    static let envelope: [Rejection] = [
        Rejection(frame: "", ref: nil, mentions: "malformed JSON"),
        Rejection(frame: "{", ref: nil, mentions: "malformed JSON"),
        Rejection(frame: #"{"type":"ping",}"#, ref: nil, mentions: "malformed JSON"),
        Rejection(frame: #"{"type":"ping","type":"ping"}"#, ref: nil, mentions: "malformed JSON"),
        Rejection(frame: #"[{"type":"ping"}]"#, ref: nil, mentions: "JSON object"),
        Rejection(frame: #""ping""#, ref: nil, mentions: "JSON object"),
        Rejection(frame: "null", ref: nil, mentions: "JSON object"),
        Rejection(frame: #"{"ref":"r","x":[[[[[[[1]]]]]]]}"#, ref: nil, mentions: "malformed JSON"),
        Rejection(frame: #"{"type":"ping","ref":7}"#, ref: nil, mentions: #""ref" must be a string"#),
        Rejection(frame: #"{"type":"ping","ref":"\#(String(repeating: "r", count: 129))"}"#, ref: nil, mentions: "128"),
        Rejection(frame: #"{"type":"ping","ref":"a\u0000"}"#, ref: nil, mentions: "U+0000"),
        Rejection(frame: #"{"ref":"r"}"#, ref: "r", mentions: #""type" is required"#),
        Rejection(frame: #"{"ref":"r","type":null}"#, ref: "r", mentions: #""type" is required"#),
        Rejection(frame: #"{"ref":"r","type":5}"#, ref: "r", mentions: #""type" must be a string"#),
        Rejection(frame: #"{"ref":"r","type":""}"#, ref: "r", mentions: #""type""#),
        Rejection(frame: #"{"ref":"r","type":"pong"}"#, ref: "r", mentions: #"unknown type "pong""#),
        Rejection(frame: #"{"ref":"r","type":"PING"}"#, ref: "r", mentions: "unknown type"),
    ]

    static let fields: [Rejection] = [
        // hello
        Rejection(frame: #"{"type":"hello","ref":"h"}"#, ref: "h", mentions: #""token" is required"#),
        Rejection(frame: #"{"type":"hello","ref":"h","token":""}"#, ref: "h", mentions: #""token" must not be empty"#),
        Rejection(frame: #"{"type":"hello","ref":"h","token":1}"#, ref: "h", mentions: #""token" must be a string"#),
        Rejection(frame: #"{"type":"hello","ref":"h","token":"a\u0000b"}"#, ref: "h", mentions: #""token""#),
        // session.create
        Rejection(frame: #"{"type":"session.create","ref":"s","title":3}"#, ref: "s", mentions: #""title""#),
        Rejection(
            frame: #"{"type":"session.create","ref":"s","title":"\#(String(repeating: "t", count: 201))"}"#, ref: "s",
            mentions: #""title" must be a string of 1 to 200 characters"#),
        Rejection(
            frame: #"{"type":"session.create","ref":"s","title":""}"#, ref: "s",
            mentions: #""title" must be a string of 1 to 200 characters"#),
        Rejection(frame: #"{"type":"session.create","ref":"s","title":"\u0000"}"#, ref: "s", mentions: "U+0000"),
        // join
        Rejection(frame: #"{"type":"join","ref":"j"}"#, ref: "j", mentions: #""session_id" is required"#),
        Rejection(
            frame: #"{"type":"join","ref":"j","session_id":42}"#, ref: "j", mentions: #""session_id" must be a UUID"#),
        Rejection(
            frame: #"{"type":"join","ref":"j","session_id":"9f0e1a2b3c4d4e5f8a9b0c1d2e3f4a5b"}"#, ref: "j",
            mentions: #""session_id" must be a UUID"#),
        Rejection(
            frame: #"{"type":"join","ref":"j","session_id":"{9f0e1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b}"}"#, ref: "j",
            mentions: #""session_id" must be a UUID"#),
        Rejection(
            frame: #"{"type":"join","ref":"j","session_id":"9f0e1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5g"}"#, ref: "j",
            mentions: #""session_id" must be a UUID"#),
        Rejection(
            frame: #"{"type":"join","ref":"j","session_id":"9f0e1a2b-3c4d-4e5f-8a9b0-c1d2e3f4a5b"}"#, ref: "j",
            mentions: #""session_id" must be a UUID"#),
        Rejection(
            frame: #"{"type":"join","ref":"j","session_id":"\#(id)","since_seq":-1}"#, ref: "j",
            mentions: #""since_seq""#),
        Rejection(
            frame: #"{"type":"join","ref":"j","session_id":"\#(id)","since_seq":1.5}"#, ref: "j",
            mentions: #""since_seq""#),
        Rejection(
            frame: #"{"type":"join","ref":"j","session_id":"\#(id)","since_seq":"3"}"#, ref: "j",
            mentions: #""since_seq""#),
        Rejection(
            frame: #"{"type":"join","ref":"j","session_id":"\#(id)","since_seq":9223372036854775808}"#, ref: "j",
            mentions: #""since_seq""#),
        // leave
        Rejection(frame: #"{"type":"leave","ref":"l"}"#, ref: "l", mentions: #""session_id" is required"#),
        Rejection(
            frame: #"{"type":"leave","ref":"l","session_id":""}"#, ref: "l", mentions: #""session_id" must be a UUID"#),
        // send
        Rejection(
            frame: #"{"type":"send","ref":"s","client_msg_id":"c","body":"b"}"#, ref: "s", mentions: #""session_id""#),
        Rejection(
            frame: #"{"type":"send","ref":"s","session_id":"\#(id)","body":"b"}"#, ref: "s",
            mentions: #""client_msg_id" is required"#),
        Rejection(
            frame: #"{"type":"send","ref":"s","session_id":"\#(id)","client_msg_id":"","body":"b"}"#, ref: "s",
            mentions: #""client_msg_id" must not be empty"#),
        Rejection(
            frame:
                #"{"type":"send","ref":"s","session_id":"\#(id)","client_msg_id":"\#(String(repeating: "c", count: 129))","body":"b"}"#,
            ref: "s", mentions: #""client_msg_id" must be at most 128 bytes"#),
        Rejection(
            frame: #"{"type":"send","ref":"s","session_id":"\#(id)","client_msg_id":7,"body":"b"}"#, ref: "s",
            mentions: #""client_msg_id" must be a string"#),
        Rejection(
            frame: #"{"type":"send","ref":"s","session_id":"\#(id)","client_msg_id":"c"}"#, ref: "s",
            mentions: #""body" is required"#),
        Rejection(
            frame: #"{"type":"send","ref":"s","session_id":"\#(id)","client_msg_id":"c","body":""}"#, ref: "s",
            mentions: #""body" must not be empty"#),
        Rejection(
            frame: #"{"type":"send","ref":"s","session_id":"\#(id)","client_msg_id":"c","body":["x"]}"#, ref: "s",
            mentions: #""body" must be a string"#),
        Rejection(
            frame: #"{"type":"send","ref":"s","session_id":"\#(id)","client_msg_id":"c","body":"a\u0000"}"#, ref: "s",
            mentions: #""body" must not contain U+0000"#),
        Rejection(
            frame: #"{"type":"send","ref":"s","session_id":"\#(id)","client_msg_id":"c\u0000","body":"a"}"#, ref: "s",
            mentions: #""client_msg_id" must not contain U+0000"#),
        Rejection(
            frame: #"{"type":"send","ref":"s","session_id":"\#(id)","client_msg_id":"c","body":"b","kind":""}"#,
            ref: "s", mentions: #""kind""#),
        Rejection(
            frame: #"{"type":"send","ref":"s","session_id":"\#(id)","client_msg_id":"c","body":"b","kind":"Text"}"#,
            ref: "s", mentions: #""kind""#),
        Rejection(
            frame: #"{"type":"send","ref":"s","session_id":"\#(id)","client_msg_id":"c","body":"b","kind":"a b"}"#,
            ref: "s", mentions: #""kind""#),
        Rejection(
            frame:
                #"{"type":"send","ref":"s","session_id":"\#(id)","client_msg_id":"c","body":"b","kind":"\#(String(repeating: "k", count: 33))"}"#,
            ref: "s", mentions: #""kind""#),
        Rejection(
            frame: #"{"type":"send","ref":"s","session_id":"\#(id)","client_msg_id":"c","body":"b","kind":1}"#,
            ref: "s", mentions: #""kind" must be a string"#),
        // typing
        Rejection(
            frame: #"{"type":"typing","ref":"t","session_id":"\#(id)"}"#, ref: "t", mentions: #""state" is required"#),
        Rejection(
            frame: #"{"type":"typing","ref":"t","session_id":"\#(id)","state":null}"#, ref: "t",
            mentions: #""state" is required"#),
        Rejection(
            frame: #"{"type":"typing","ref":"t","session_id":"\#(id)","state":"true"}"#, ref: "t",
            mentions: #""state" must be a boolean"#),
        Rejection(frame: #"{"type":"typing","ref":"t","state":true}"#, ref: "t", mentions: #""session_id""#),
        // read
        Rejection(
            frame: #"{"type":"read","ref":"r","session_id":"\#(id)"}"#, ref: "r", mentions: #""seq" is required"#),
        Rejection(frame: #"{"type":"read","ref":"r","session_id":"\#(id)","seq":-5}"#, ref: "r", mentions: #""seq""#),
        Rejection(frame: #"{"type":"read","ref":"r","session_id":"\#(id)","seq":1e3}"#, ref: "r", mentions: #""seq""#),
        Rejection(frame: #"{"type":"read","ref":"r","seq":1}"#, ref: "r", mentions: #""session_id""#),
        // session.assign
        Rejection(frame: #"{"type":"session.assign","ref":"a"}"#, ref: "a", mentions: #""session_id""#),
        Rejection(
            frame: #"{"type":"session.assign","ref":"a","session_id":"\#(id)","operator_id":5}"#, ref: "a",
            mentions: #""operator_id" must be a string"#),
        Rejection(
            frame:
                #"{"type":"session.assign","ref":"a","session_id":"\#(id)","operator_id":"\#(String(repeating: "o", count: 129))"}"#,
            ref: "a", mentions: #""operator_id" must be at most 128 bytes"#),
        Rejection(
            frame: #"{"type":"session.assign","ref":"a","session_id":"\#(id)","operator_id":""}"#, ref: "a",
            mentions: #""operator_id""#),
        Rejection(
            frame: #"{"type":"session.assign","ref":"a","session_id":"\#(id)","operator_id":"o\u0000"}"#, ref: "a",
            mentions: "U+0000"),
        // session.close
        Rejection(frame: #"{"type":"session.close","ref":"c"}"#, ref: "c", mentions: #""session_id" is required"#),
        Rejection(
            frame: #"{"type":"session.close","ref":"c","session_id":"x"}"#, ref: "c",
            mentions: #""session_id" must be a UUID"#),
    ]

    @Test(arguments: envelope + fields)
    func rejectsFrame(_ rejection: Rejection) throws {
        let error = try #require(refused(rejection.frame))
        #expect(error.code == rejection.code)
        #expect(error.ref == rejection.ref)
        #expect(error.message.contains(rejection.mentions), "message: \(error.message)")
    }

    @Test func bodyOneByteOverTheLimitIsTooLarge() throws {
        let body = String(repeating: "a", count: 17)
        let frame = #"{"type":"send","ref":"big","session_id":"\#(id)","client_msg_id":"c","body":"\#(body)"}"#
        let error = try #require(refused(frame))
        #expect(error == ChatError(.tooLarge, error.message, ref: "big"))
        #expect(error.message.contains("16"))
    }

    @Test func bodyLimitCountsUTF8BytesNotCharacters() throws {
        // 7 two-byte characters plus "ab": 9 characters but 16 bytes, then 17 bytes.
        let fits = String(repeating: "\u{e9}", count: 7) + "ab"
        let frame = #"{"type":"send","session_id":"\#(id)","client_msg_id":"c","body":"\#(fits)"}"#
        #expect(accepted(frame) != nil)
        let over = String(repeating: "\u{e9}", count: 7) + "abc"
        let overFrame = #"{"type":"send","ref":"u","session_id":"\#(id)","client_msg_id":"c","body":"\#(over)"}"#
        #expect(refused(overFrame)?.code == .tooLarge)
        // Five four-byte emoji: 5 characters, 20 bytes.
        let emoji = String(repeating: "\u{1F600}", count: 5)
        let emojiFrame = #"{"type":"send","ref":"u","session_id":"\#(id)","client_msg_id":"c","body":"\#(emoji)"}"#
        let error = try #require(refused(emojiFrame))
        #expect(error.code == .tooLarge)
        #expect(error.ref == "u")
        // The same limit written with escapes still counts the decoded bytes.
        let escaped =
            #"{"type":"send","session_id":"\#(id)","client_msg_id":"c","body":"\ud83d\ude00\ud83d\ude00\ud83d\ude00\ud83d\ude00a"}"#
        #expect(refused(escaped)?.code == .tooLarge)
    }

    @Test func hugeBodyIsTooLargeNotMalformed() throws {
        let body = String(repeating: "x", count: 100_000)
        let frame = #"{"type":"send","ref":"h","session_id":"\#(id)","client_msg_id":"c","body":"\#(body)"}"#
        let error = try #require(refused(frame, limits: ChatLimits(maxBodyBytes: 8192)))
        #expect(error.code == .tooLarge)
        #expect(error.message.contains("8192"))
    }

    @Test func manyMembersAreRefused() throws {
        let extras = (0..<100).map { #""f\#($0)":0"# }.joined(separator: ",")
        let error = try #require(refused(#"{"type":"ping",\#(extras)}"#))
        #expect(error.code == .badRequest)
    }
}
