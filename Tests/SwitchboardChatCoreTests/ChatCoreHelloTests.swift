import Testing

@testable import SwitchboardChatCore

/// What a connection meets before its first command, as core commands over
/// the fakes: `hello` first, the auth timeout, the rate limit with its
/// strikes, the token's expiry, and text only.
@Suite struct ChatCoreHelloTests {
    @Test func aValidHelloIsWelcomedWithTheIdentityAndTheLimits() {
        let harness = CoreHarness()
        let client = harness.open()
        client.send(["type": "hello", "ref": "h", "token": harness.token(.operator, "op-ken", name: "Ken")])
        let welcome = client.peer.take().first
        #expect(welcome?["type"] as? String == "welcome")
        let user = welcome?["user"] as? [String: Any]
        #expect(user?["id"] as? String == "op-ken" && user?["role"] as? String == "operator")
        #expect(welcome?["workspace_id"] as? String == CoreHarness.workspace)
        #expect((welcome?["limits"] as? [String: Any])?["max_body_bytes"] as? Int == 8192)
        #expect(harness.sample("switchboard_connections{role=\"operator\"}") == 1)
        #expect(harness.sample("switchboard_connections{role=\"unauthenticated\"}") == 0)
        client.send(["type": "ping", "ref": "p"])
        #expect(client.peer.take().types == ["pong"])
    }

    @Test func anythingBeforeHelloOrABadTokenIsRefusedAndClosed() {
        let harness = CoreHarness()
        let early = harness.open()
        early.send(["type": "ping", "ref": "p"])
        #expect(early.peer.take().first?["code"] as? String == "unauthorized")
        #expect(early.peer.closedWith?.code == 4001)

        let garbled = harness.open()
        garbled.sendText("{not json")
        #expect(garbled.peer.closedWith?.code == 4001)

        let forged = harness.open()
        let token = harness.token(.admin, "a-1")
        forged.send(["type": "hello", "token": String(token.dropLast(2)) + "xx"])
        #expect(forged.peer.take().first?["code"] as? String == "unauthorized")
        #expect(forged.peer.closedWith?.code == 4001)

        let twice = harness.connect(.visitor, "v-1")
        twice.send(["type": "hello", "token": harness.token(.visitor, "v-1")])
        #expect(twice.peer.take().first?["code"] as? String == "bad_request", "a second hello")
        #expect(twice.peer.closedWith == nil)
    }

    @Test func aConnectionThatSaysNothingIsClosedAtTheAuthTimeout() {
        let harness = CoreHarness { $0.authTimeoutMilliseconds = 10_000 }
        let silent = harness.open()
        harness.nowMilliseconds += 9_999
        harness.tick()
        #expect(silent.peer.closedWith == nil)
        harness.nowMilliseconds += 1
        harness.tick()
        #expect(silent.peer.closedWith?.code == 4001)
        #expect(silent.peer.closedWith?.reason == "no hello within 10 s")
    }

    @Test func aTokenThatExpiresWhileConnectedEndsTheConnection() {
        let harness = CoreHarness { $0.clockSkewSeconds = 0 }
        let client = harness.connect(.visitor, "v-1", ttl: 60)
        harness.wallClock.seconds += 59
        harness.tick()
        #expect(client.peer.closedWith == nil)
        harness.wallClock.seconds += 2
        harness.tick()
        #expect(client.peer.take().first?["message"] as? String == "token expired")
        #expect(client.peer.closedWith?.code == 4001)
    }

    @Test func framesOverTheRateAreRefusedAndAClientThatKeepsPushingIsClosed() {
        let harness = CoreHarness {
            $0.ratePerSecond = 10
            $0.rateBurst = 5
            $0.rateStrikes = 3
        }
        let client = harness.connect(.visitor, "v-1")
        for index in 0..<4 { client.send(["type": "ping", "ref": "p\(index)"]) }  // the hello took one
        #expect(client.peer.take().types == ["pong", "pong", "pong", "pong"])
        client.send(["type": "ping", "ref": "over"])
        let refused = client.peer.take().first
        #expect(refused?["code"] as? String == "rate_limited" && refused?["ref"] as? String == "over")
        #expect(harness.sample("switchboard_rate_limited_total") == 1)
        // Time refills the bucket.
        harness.nowMilliseconds += 200
        client.send(["type": "ping"])
        #expect(client.peer.take().types == ["pong"])
        // Pushing on: refused each time, then closed.
        for _ in 0..<10 where client.peer.closedWith == nil { client.send(["type": "ping"]) }
        #expect(client.peer.closedWith?.code == 4008)
    }

    @Test func aBinaryFrameEndsTheConnection() {
        let harness = CoreHarness()
        let client = harness.connect(.visitor, "v-1")
        client.core.receiveBinary(from: client.id)
        #expect(client.peer.closedWith?.code == 1003)
    }

    @Test func closingForgetsTheConnectionInTheMetrics() {
        let harness = CoreHarness()
        let waiting = harness.open()
        let visitor = harness.connect(.visitor, "v-1")
        #expect(harness.sample("switchboard_connections{role=\"unauthenticated\"}") == 1)
        #expect(harness.sample("switchboard_connections{role=\"visitor\"}") == 1)
        waiting.close()
        visitor.close()
        #expect(harness.sample("switchboard_connections{role=\"unauthenticated\"}") == 0)
        #expect(harness.sample("switchboard_connections{role=\"visitor\"}") == 0)
    }
}

extension CoreHarness {
    /// A sample of /metrics as the gateway renders it (nil when absent).
    func sample(_ series: String) -> Double? {
        for line in metrics.renderString().split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }
}
