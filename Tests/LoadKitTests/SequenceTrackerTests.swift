import SwitchboardChat
import Testing

@testable import LoadKit

@Suite("SequenceTracker")
struct SequenceTrackerTests {
    @Test("in-order seqs are clean")
    func inOrder() {
        var tracker = SequenceTracker()
        for seq in 1...5 { #expect(tracker.observe(Int64(seq)) == .inOrder) }
        #expect(tracker.gaps == 0 && tracker.duplicates == 0 && tracker.reorders == 0)
    }

    @Test("a skipped seq is a gap until it arrives, then a reorder")
    func gapThenReorder() {
        var tracker = SequenceTracker()
        tracker.observe(1)
        #expect(tracker.observe(4) == .gap)
        #expect(tracker.gaps == 2)
        #expect(tracker.observe(3) == .reorder)
        #expect(tracker.gaps == 1)
        #expect(tracker.reorders == 1)
        #expect(tracker.observe(3) == .duplicate)
        #expect(tracker.observe(1) == .duplicate)
        #expect(tracker.duplicates == 2)
    }

    @Test("a rejoin starts after since_seq; seqs the session reached but never arrived are gaps")
    func rejoinAndTail() {
        var tracker = SequenceTracker(after: 7)
        #expect(tracker.observe(8) == .inOrder)
        tracker.expectThrough(11)
        #expect(tracker.gaps == 3)
        #expect(tracker.highest == 11)
    }

    @Test("a rejoin joins since the highest seq; a replay of seqs already had is neither a delivery nor an error")
    func replayOfWhatWasHad() {
        var tracker = SequenceTracker()
        for seq in 1...6 { tracker.observe(Int64(seq)) }
        #expect(tracker.rejoin() == 6)
        // A replay from 4: 4, 5 and 6 were had, each excused once, in order.
        #expect(tracker.observe(4) == .replayed)
        #expect(tracker.observe(5) == .replayed)
        #expect(tracker.observe(6) == .replayed)
        #expect(tracker.observe(7) == .inOrder)
        #expect(tracker.replayedAgain == 3)
        #expect(tracker.duplicates == 0 && tracker.gaps == 0 && tracker.reorders == 0)
    }

    @Test("after a rejoin, a seq delivered twice is still a duplicate, live or replayed")
    func duplicatesAfterRejoin() {
        var tracker = SequenceTracker()
        for seq in 1...5 { tracker.observe(Int64(seq)) }
        _ = tracker.rejoin()
        #expect(tracker.observe(4) == .replayed)
        #expect(tracker.observe(4) == .duplicate)  // the replay repeated itself
        #expect(tracker.observe(3) == .duplicate)  // and went backwards
        #expect(tracker.observe(6) == .inOrder)
        #expect(tracker.observe(6) == .duplicate)  // live, twice
        #expect(tracker.observe(2) == .duplicate)  // nothing at or below since_seq comes live
        #expect(tracker.duplicates == 4 && tracker.replayedAgain == 1)
    }

    @Test("a gap open before the drop stays a gap; filled by the replay, it is a reorder")
    func gapAcrossRejoin() {
        var tracker = SequenceTracker()
        tracker.observe(1)
        tracker.observe(3)
        #expect(tracker.rejoin() == 3)
        #expect(tracker.observe(4) == .inOrder)
        #expect(tracker.gaps == 1)
        var filled = tracker
        #expect(filled.observe(2) == .reorder)
        #expect(filled.gaps == 0 && filled.reorders == 1 && filled.replayedAgain == 0)
    }

    @Test("without a rejoin, nothing is excused: a repeat is a duplicate")
    func noRejoinNoExcuse() {
        var tracker = SequenceTracker(after: 7)
        #expect(tracker.observe(8) == .inOrder)
        #expect(tracker.observe(7) == .duplicate)
        #expect(tracker.observe(8) == .duplicate)
        #expect(tracker.replayedAgain == 0)
    }
}

@Suite("ServerFrame")
struct ServerFrameTests {
    func read(_ text: String) -> (ServerFrame?, [UInt8]) {
        let bytes = Array(text.utf8)
        return (bytes.withUnsafeBytes { ServerFrame.read($0) }, bytes)
    }

    @Test("members are found in any order, nested values skipped")
    func anyOrder() throws {
        let (parsed, bytes) = read(
            #"{"sender":{"id":"x","n":[1,{"seq":99}]},"body":"t123 \"q\"","seq":42,"type":"message","session_id":"s1"}"#
        )
        let frame = try #require(parsed)
        #expect(frame.kind == .message)
        #expect(frame.seq == 42)
        #expect(String(decoding: bytes[try #require(frame.sessionID)], as: UTF8.self) == "s1")
        let body = try #require(frame.body)
        #expect(bytes.withUnsafeBytes { ClientFrames.stampedInstant($0, body, prefix: UInt8(ascii: "t")) } == 123)
    }

    @Test("escaped quotes and backslashes stay inside their string")
    func escapes() throws {
        let (parsed, bytes) = read(#"{"body":"a\\","ref":"x\\\"y","type":"ack","seq":3}"#)
        let frame = try #require(parsed)
        #expect(frame.kind == .ack && frame.seq == 3)
        #expect(String(decoding: bytes[try #require(frame.body)], as: UTF8.self) == #"a\\"#)
        #expect(String(decoding: bytes[try #require(frame.ref)], as: UTF8.self) == #"x\\\"y"#)
    }

    @Test("a session frame's id is read from the nested object")
    func sessionID() throws {
        let (parsed, bytes) = read(#"{"type":"session","ref":"setup","session":{"title":"a}b","id":"abc"}}"#)
        let frame = try #require(parsed)
        #expect(frame.kind == .session)
        let session = try #require(frame.session)
        let id = try #require(bytes.withUnsafeBytes { ServerFrame.nestedID($0, session) })
        #expect(String(decoding: bytes[id], as: UTF8.self) == "abc")
    }

    @Test("a message frame as the gateway encodes it is read by the fast path, as the general walk reads it")
    func gatewayMessage() throws {
        var encoder = ServerFrameEncoder()
        for body in ["t123 hello", "t9 say \"hi\" \\", "", String(repeating: "é", count: 40)] {
            let message = ChatMessage(
                id: "0193a1b2-0000-7000-8000-000000000001", sessionID: "5f0c9d2e-1111-4222-8333-444455556666",
                seq: 7, clientMessageID: "5000009", kind: "text", body: body,
                sender: SwitchboardChat.Participant(id: "v-1", role: "visitor", name: "Ann"),
                createdAt: "2026-11-27T08:00:01.234Z")
            let bytes = encoder.message(message)
            let fast = try #require(bytes.withUnsafeBytes { ServerFrame.readMessage($0) })
            let general = try #require(bytes.withUnsafeBytes { ServerFrame.readMembers($0) })
            #expect(fast == general)
            #expect(fast.kind == .message && fast.seq == 7)
            #expect(String(decoding: bytes[try #require(fast.sessionID)], as: UTF8.self) == message.sessionID)
            #expect(String(decoding: bytes[try #require(fast.clientMsgID)], as: UTF8.self) == "5000009")
        }
    }

    @Test(
        "a message in another layout is left to the general walk",
        arguments: [
            #"{"type":"message","seq":3,"session_id":"s","id":"i","client_msg_id":"c","kind":"text","body":"b"}"#,
            #"{"type":"message","session_id":"s","seq":-x,"id":"i","client_msg_id":"c","kind":"text","body":"b"}"#,
            #"{"type": "message","session_id":"s","seq":3,"id":"i","client_msg_id":"c","kind":"text","body":"b"}"#,
            #"{"type":"message","session_id":"s","seq":3,"id":"i","client_msg_id":"c","kind":"text","body":"b"#,
        ])
    func otherLayouts(_ text: String) {
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBytes { ServerFrame.readMessage($0) } == nil)
        #expect(read(text).0 == bytes.withUnsafeBytes { ServerFrame.readMembers($0) })
    }

    @Test("a string ends at its first unescaped quote wherever it falls in a word")
    func stringEnds() {
        for length in 0..<24 {
            for escapedAt in [-1] + Array(0..<length) {
                var content = Array(repeating: UInt8(ascii: "a"), count: length)
                if escapedAt >= 0 { content.replaceSubrange(escapedAt..<(escapedAt + 1), with: Array(#"\""#.utf8)) }
                let bytes = content + Array(#"","x":1}"#.utf8)
                let end = bytes.withUnsafeBytes { JSONMembers.stringEnd($0, 0, bytes.count) }
                #expect(end == content.count, "length \(length), escaped quote at \(escapedAt)")
            }
        }
        let unterminated = Array(#"abcdefghij\"klmno"#.utf8)
        #expect(unterminated.withUnsafeBytes { JSONMembers.stringEnd($0, 0, unterminated.count) } == nil)
    }

    @Test("truncated or non-object payloads are refused", arguments: [#"{"type":"ack","seq":1"#, "[1]", "", #"{"a""#])
    func malformed(_ text: String) {
        #expect(read(text).0 == nil)
    }
}

@Suite("ClientFrames")
struct ClientFramesTests {
    @Test("an instant is read whole, eight digits at a time or one by one, up to the first other byte")
    func stampedInstants() {
        var generator = SystemRandomNumberGenerator()
        let samples: [UInt64] =
            [0, 7, 12_345_678, 123_456_789, 99_999_999_999, .max / 10]
            + (0..<500).map { _ in UInt64.random(in: 0...(.max / 10), using: &generator) }
        for value in samples {
            for tail in ["", " x", "\"", ":9", "/"] {
                let bytes = Array("t\(value)\(tail)".utf8)
                let read = bytes.withUnsafeBytes {
                    ClientFrames.stampedInstant($0, 0..<bytes.count, prefix: UInt8(ascii: "t"))
                }
                #expect(read == value, "t\(value)\(tail)")
            }
        }
        let bytes = Array("t12345678901234567890".utf8)
        #expect(
            bytes.withUnsafeBytes { ClientFrames.stampedInstant($0, 0..<9, prefix: UInt8(ascii: "t")) } == 12_345_678)
        #expect(
            Array("x123".utf8).withUnsafeBytes { ClientFrames.stampedInstant($0, 0..<4, prefix: UInt8(ascii: "t")) }
                == nil)
    }

    @Test("a send frame carries its instant in ref and body, padded to the body size")
    func sendFrame() throws {
        var out: [UInt8] = []
        let id = ClientFrames.messageID(sender: 5, counter: 9)
        ClientFrames.appendSend(
            to: &out, scheduled: 1_234_567, sessionID: Array("sid".utf8), messageID: id, bodyBytes: 40)
        let text = String(decoding: out, as: UTF8.self)
        #expect(
            text.hasPrefix(
                #"{"type":"send","ref":"r1234567","session_id":"sid","client_msg_id":"5000009","body":"t1234567 x"#))
        let frame = try #require(out.withUnsafeBytes { ServerFrame.read($0) })
        #expect(frame.body?.count == 40)
        #expect(ClientFrames.parseMessageID(out[try #require(frame.clientMsgID)]) == id)
    }
}

@Suite("LatencyRecorder")
struct LatencyRecorderTests {
    @Test("percentiles come from the recorded distribution, in milliseconds")
    func percentiles() {
        var recorder = LatencyRecorder()
        for micros in 1...1000 { recorder.record(nanoseconds: UInt64(micros) * 1000) }
        recorder.record(nanoseconds: 2_000_000_000)
        let summary = recorder.summary(key: "k", label: "l")
        #expect(summary.count == 1001)
        #expect(abs(summary.p50 - 0.5) < 0.01)
        #expect(abs(summary.p99 - 0.99) < 0.01)
        #expect(abs(summary.max - 2000) < 2)
        #expect(summary.curve.last?.percentile == 100)
    }
}
