import Testing

@testable import SwitchboardNATS

private func text(_ bytes: some Sequence<UInt8>) -> String { String(decoding: Array(bytes), as: UTF8.self) }

@Suite struct NATSEncodingTests {
    @Test func frames() {
        var bytes: [UInt8] = []
        NATSEncoding.appendSubscribe("chat.>", sid: 12, to: &bytes)
        NATSEncoding.appendUnsubscribe(sid: 12, to: &bytes)
        NATSEncoding.appendPing(to: &bytes)
        NATSEncoding.appendPong(to: &bytes)
        NATSEncoding.appendPublication(subject: "a.b", payload: Array("hello".utf8), to: &bytes)
        NATSEncoding.appendPublication(subject: "e", payload: [], to: &bytes)
        #expect(text(bytes) == "SUB chat.> 12\r\nUNSUB 12\r\nPING\r\nPONG\r\nPUB a.b 5\r\nhello\r\nPUB e 0\r\n\r\n")
    }

    @Test func connectIsQuietAndNamed() {
        var bytes: [UInt8] = []
        NATSEncoding.appendConnect(name: "node \"1\"\\\n", to: &bytes)
        #expect(
            text(bytes)
                == #"CONNECT {"verbose":false,"pedantic":false,"name":"node \"1\"\\\u000a","lang":"swift","version":"1.0.0"}"#
                + "\r\n")
    }

    @Test func connectWithoutEchoSaysSo() {
        var bytes: [UInt8] = []
        NATSEncoding.appendConnect(name: "n", echo: false, to: &bytes)
        #expect(
            text(bytes)
                == #"CONNECT {"verbose":false,"pedantic":false,"echo":false,"name":"n","lang":"swift","version":"1.0.0"}"#
                + "\r\n")
    }

    @Test func publicationSizeMatchesTheEncoding() {
        for count in [0, 1, 9, 10, 99, 100, 12345] {
            var bytes: [UInt8] = []
            NATSEncoding.appendPublication(
                subject: "sub.ject", payload: [UInt8](repeating: 1, count: count), to: &bytes)
            #expect(NATSEncoding.publicationSize(subject: "sub.ject", payloadCount: count) == bytes.count)
        }
    }

    @Test func decimals() {
        for value: UInt64 in [0, 7, 10, 99, 100, 4_294_967_296, UInt64.max] {
            var bytes: [UInt8] = []
            NATSEncoding.appendDecimal(value, to: &bytes)
            #expect(text(bytes) == String(value))
            #expect(NATSEncoding.digitCount(value) == String(value).count)
        }
    }

    @Test func subjects() {
        #expect(NATSEncoding.isValidSubject("chat.room.*"))
        #expect(NATSEncoding.isValidSubject(String(repeating: "a", count: 1024)))
        #expect(!NATSEncoding.isValidSubject(String(repeating: "a", count: 1025)))
        for invalid in ["", "a b", "a\tb", "a\r\nPUB x 0", "a\n"] { #expect(!NATSEncoding.isValidSubject(invalid)) }
    }
}

@Suite struct PublishBufferTests {
    /// Three frames: "PUB a 1\r\nx\r\n" is 12 bytes, "PUB b 2\r\nyy\r\n" 13, "PUB c 0\r\n\r\n" 11.
    func threeFrames() -> PublishBuffer {
        var buffer = PublishBuffer()
        buffer.append(subject: "a", payload: Array("x".utf8))
        buffer.append(subject: "b", payload: Array("yy".utf8))
        buffer.append(subject: "c", payload: [])
        return buffer
    }

    @Test func writesCompleteFramesAndReportsThem() {
        var buffer = threeFrames()
        #expect(buffer.unsentFrames == 3)
        #expect(buffer.didWrite(5) == (0, 0))
        #expect(buffer.didWrite(10) == (1, 12))
        #expect(text(buffer.unsent) == " b 2\r\nyy\r\nPUB c 0\r\n\r\n")
        #expect(buffer.didWrite(21) == (2, 24))
        #expect(buffer.isEmpty)
        #expect(buffer.bytes.isEmpty)
    }

    @Test func rewindResendsTheFrameCutShortWhole() {
        var buffer = threeFrames()
        _ = buffer.didWrite(14)
        buffer.rewind()
        #expect(text(buffer.unsent) == "PUB b 2\r\nyy\r\nPUB c 0\r\n\r\n")
        #expect(buffer.unsentFrames == 2)
    }

    @Test func movingIntoAnEmptyBufferSwaps() {
        var outbox = PublishBuffer()
        var queued = threeFrames()
        outbox.moveAll(from: &queued)
        #expect(queued.isEmpty && queued.bytes.isEmpty)
        #expect(outbox.unsentFrames == 3)
        #expect(text(outbox.unsent) == "PUB a 1\r\nx\r\nPUB b 2\r\nyy\r\nPUB c 0\r\n\r\n")
    }

    @Test func movingBehindAPartlyWrittenBufferKeepsFrameBoundaries() {
        var outbox = threeFrames()
        _ = outbox.didWrite(30)  // two frames and 5 bytes of the third
        var queued = PublishBuffer()
        queued.append(subject: "d", payload: Array("zzz".utf8))
        outbox.moveAll(from: &queued)
        #expect(text(outbox.unsent) == " 0\r\n\r\nPUB d 3\r\nzzz\r\n")
        outbox.rewind()
        #expect(text(outbox.unsent) == "PUB c 0\r\n\r\nPUB d 3\r\nzzz\r\n")
        #expect(outbox.didWrite(11) == (1, 11))
        #expect(outbox.didWrite(14) == (1, 14))
        #expect(outbox.isEmpty)
    }
}

@Suite struct KeepAliveTests {
    @Test func pingsAfterSilenceAndGivesUpAfterTwoUnanswered() {
        var keepAlive = KeepAlive(interval: 10_000, maxOutstanding: 2, now: 0)
        #expect(keepAlive.action(at: 9_999) == .wait(until: 10_000))
        #expect(keepAlive.action(at: 10_000) == .ping)
        keepAlive.pinged(at: 10_000)
        #expect(keepAlive.action(at: 15_000) == .wait(until: 20_000))
        #expect(keepAlive.action(at: 20_000) == .ping)
        keepAlive.pinged(at: 20_000)
        #expect(keepAlive.action(at: 30_000) == .dead)
    }

    @Test func trafficPostponesThePingAndPongsClearIt() {
        var keepAlive = KeepAlive(interval: 10_000, maxOutstanding: 2, now: 0)
        keepAlive.heard(at: 8_000)
        #expect(keepAlive.action(at: 10_000) == .wait(until: 18_000))
        keepAlive.pinged(at: 18_000)
        keepAlive.pinged(at: 28_000)
        keepAlive.ponged()
        #expect(keepAlive.outstanding == 1)
        #expect(keepAlive.action(at: 38_000) == .ping)
        keepAlive.ponged()
        keepAlive.ponged()
        #expect(keepAlive.outstanding == 0)
    }
}

@Suite struct NATSServerInfoTests {
    @Test func maxPayload() {
        func scan(_ json: String) -> Int? { NATSServerInfo.maxPayload(in: Array(json.utf8)) }
        #expect(scan(#"{"server_id":"x","max_payload":1048576,"proto":1}"#) == 1_048_576)
        #expect(scan(#"{"max_payload" : 8388608}"#) == 8_388_608)
        #expect(scan(#"{"server_id":"x"}"#) == nil)
        #expect(scan(#"{"max_payload":"big"}"#) == nil)
        #expect(scan(#"{"max_payload":0}"#) == nil)
        #expect(scan(#"{"max_payload":99999999999999999999999}"#) == nil)
        #expect(scan("") == nil)
    }
}
