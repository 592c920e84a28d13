import Foundation
import SwitchboardAuth
import Testing

/// Frame kinds, sizes, rates and slow readers.
@Suite(.serialized) struct LimitTests {
    @Test func aBinaryFrameClosesWith1003() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let client = try fixture.client(.visitor, "v-1")
        client.raw.send(RawClient.maskedFrame(opcode: 2, payload: [1, 2, 3]))
        #expect(client.waitForClose() == 1003)
    }

    @Test func anOversizeMessageClosesWith1009() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let client = try fixture.client(.visitor, "v-1")
        client.sendText(#"{"type":"ping","pad":""# + String(repeating: "x", count: 70_000) + #""}"#)
        #expect(client.waitForClose() == 1009)
    }

    /// A nesting bomb inside the message limit: 30,000 open brackets. Refused as
    /// `bad_request` (frame JSON: depth 6) without deep recursion, and the
    /// connection carries on; so is an object with more than 64 members.
    @Test func aJSONNestingBombIsABadRequestAndTheConnectionCarriesOn() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let client = try fixture.client(.visitor, "v-1")
        client.sendText(#"{"type":"ping","x":"# + String(repeating: "[", count: 30_000) + "}")
        #expect(try client.next().code == "bad_request")
        let wide = (0..<65).map { #""k\#($0)":0"# }.joined(separator: ",")
        client.sendText(#"{"type":"ping","# + wide + "}")
        #expect(try client.next().code == "bad_request")
        client.send(["type": "ping", "ref": "after"])
        let pong = try client.next()
        #expect(pong.type == "pong" && pong["ref"] as? String == "after")
    }

    @Test func floodingIsRateLimitedThenClosedWith4008() throws {
        let fixture = try ChatFixture {
            $0.chatRatePerSecond = 1
            $0.chatRateBurst = 5
            $0.chatRateStrikes = 3
        }
        defer { fixture.stop() }
        let client = try fixture.client(.visitor, "v-1")  // hello took one token
        for _ in 0..<4 { client.send(["type": "ping"]) }
        for _ in 0..<4 { #expect(try client.next().type == "pong") }
        client.send(["type": "ping", "ref": "over-1"])
        client.send(["type": "ping", "ref": "over-2"])
        let first = try client.next()
        let second = try client.next()
        #expect(first.code == "rate_limited" && first["ref"] as? String == "over-1")
        #expect(second.code == "rate_limited" && second["ref"] as? String == "over-2")
        client.send(["type": "ping"])
        #expect(client.waitForClose() == 4008)
    }

    @Test func aJoinedSessionCapIsEnforced() throws {
        let fixture = try ChatFixture { $0.chatMaxJoinedSessions = 2 }
        defer { fixture.stop() }
        let visitor = try fixture.client(.visitor, "v-1")
        _ = try fixture.createSession(visitor)
        _ = try fixture.createSession(visitor)
        #expect(try visitor.request(["type": "session.create"]).code == "bad_request")

        // Pipelined creates count before they are answered: three sent at once, two fit.
        let eager = try fixture.client(.visitor, "v-2")
        for ref in ["a", "b", "c"] { eager.send(["type": "session.create", "ref": ref]) }
        var replies: [String: String] = [:]
        while replies.count < 3 {
            let frame = try eager.next()
            if let ref = frame["ref"] as? String { replies[ref] = frame.type == "error" ? frame.code : frame.type }
        }
        #expect(replies.values.filter { $0 == "session" }.count == 2)
        #expect(replies["c"] == "bad_request")
    }

    /// A peer that stops reading is one the kernel shows: its socket buffers
    /// fill and the gateway's queue grows, so this test runs a live gateway.
    @Test func aSlowSubscriberIsClosedWith1008WhileOthersKeepReceiving() throws {
        let fixture = try ChatFixture(live: true) {
            $0.maxOutboundBytes = 65536
            $0.chatRatePerSecond = 100_000
            $0.chatRateBurst = 100_000
        }
        defer { fixture.stop() }
        let visitor = try fixture.client(.visitor, "v-1")
        let sessionID = try fixture.createSession(visitor)
        let fast = try fixture.client(.operator, "op-fast")
        try fixture.join(fast, sessionID)
        let slow = try ChatClient(
            port: fixture.port, token: TestTokens.make(role: .operator, workspace: fixture.workspace, sub: "op-slow"),
            receiveBuffer: 4096)
        try fixture.join(slow, sessionID)
        // The slow one never reads while about 12 MiB go out to each subscriber.
        let body = String(repeating: "z", count: 6000)
        let total = 2000
        var acked = 0
        var seen = 0
        for i in 0..<total {
            visitor.send(["type": "send", "session_id": sessionID, "client_msg_id": "f\(i)", "body": body])
            if i % 50 == 49 {
                while acked < i + 1 {
                    if try visitor.next().type == "ack" { acked += 1 }
                }
                while seen < acked { if try fast.next().type == "message" { seen += 1 } }
            }
        }
        #expect(acked == total && seen == total)
        // The slow one is cut with 1008. Its client usually reads the close frame after the
        // backlog; on a busy machine the gateway's 3 s drain limit may reset the connection
        // first, so the gateway's own counters are the proof either way.
        let code = slow.waitForClose()
        #expect(code == 1008 || code == nil, "closed with \(String(describing: code))")
        let metrics = try HTTPTestClient.request(fixture.gateway, "GET", "/metrics")
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(text.contains("switchboard_closes_total{code=\"1008\"} 1\n"))
        #expect(text.contains("switchboard_slow_consumer_closes_total 1\n"))
    }
}
