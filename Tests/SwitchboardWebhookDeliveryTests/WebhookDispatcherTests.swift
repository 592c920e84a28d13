import SwitchboardSystem
import SwitchboardTestSupport
import SwitchboardWebhookDelivery
import SwitchboardWebhooks
import Testing

/// What a delivery looks like on the wire and what gets recorded of it: the
/// dispatcher between an in-memory queue and a real receiver on 127.0.0.1.
/// Serialized: several tests time what they observe.
@Suite(.serialized) struct WebhookDispatcherTests {
    @Test func signsEveryRequestAsStandardWebhooksWithEverySecret() throws {
        let fixture = try DispatcherFixture()
        defer { fixture.stop() }
        let previous = WebhookSecret.generate()
        for n in 1...3 { fixture.queue.add(fixture.delivery(n, secrets: [fixture.secret.text, previous.text])) }
        let sentAfter = UnixClock.nowSeconds()
        try fixture.start()
        #expect(fixture.queue.waitForOutcomes(3))
        let requests = fixture.receiver.requests
        #expect(Set(requests.map { $0.headers["webhook-id"] ?? "" }) == ["evt_1", "evt_2", "evt_3"])
        for request in requests {
            #expect(request.method == "POST")
            #expect(request.headers["content-type"] == "application/json")
            #expect(request.headers["user-agent"] == "Switchboard-Webhooks/1")
            let id = try #require(request.headers["webhook-id"])
            let timestamp = try #require(request.headers["webhook-timestamp"].flatMap { Int64($0) })
            #expect(timestamp >= sentAfter && timestamp <= UnixClock.nowSeconds())
            let signature = try #require(request.headers["webhook-signature"])
            #expect(signature.split(separator: " ").count == 2)
            #expect(request.body == fixture.delivery(Int(id.dropFirst(4))!).body)
            for secret in [fixture.secret, previous] {
                #expect(
                    WebhookSignature.verify(
                        header: signature, id: id, timestamp: timestamp, body: request.body, secret: secret,
                        now: UnixClock.nowSeconds()))
            }
        }
        for outcome in fixture.queue.outcomes {
            #expect(outcome.succeeded && outcome.statusCode == 200 && outcome.error == nil)
            #expect(outcome.responseHead == "ok" && outcome.nextAttemptAt == nil)
        }
    }

    @Test func consecutiveDeliveriesToAnEndpointShareOneConnection() throws {
        let fixture = try DispatcherFixture(
            settings: DispatcherFixture.settings {
                $0.threads = 1
                $0.maxConcurrentPerEndpoint = 1
            })
        defer { fixture.stop() }
        for n in 1...10 { fixture.queue.add(fixture.delivery(n)) }
        try fixture.start()
        #expect(fixture.queue.waitForOutcomes(10))
        #expect(fixture.queue.outcomes.allSatisfy { $0.succeeded })
        #expect(fixture.receiver.acceptedConnections == 1)
    }

    @Test func aFailureIsRetriedOnTheScaledScheduleThenSucceeds() throws {
        let scale = 0.02  // the first retry after 100 ms
        let fixture = try DispatcherFixture(settings: DispatcherFixture.settings { $0.retryScale = scale }) {
            _, index in
            index == 0 ? .status(500, body: "database is down") : .ok
        }
        defer { fixture.stop() }
        fixture.queue.add(fixture.delivery(1))
        let before = FakeDeliveryQueue.now()
        try fixture.start()
        #expect(fixture.queue.waitForOutcomes(2))
        let outcomes = fixture.queue.outcomes
        let failed = outcomes[0]
        #expect(!failed.succeeded)
        #expect(failed.statusCode == 500)
        #expect(failed.error == "HTTP 500")
        #expect(failed.responseHead == "database is down")
        let next = try #require(failed.nextAttemptAt)
        #expect(next >= before + 5 * scale && next <= FakeDeliveryQueue.now() + 5 * scale)
        #expect(outcomes[1].succeeded && outcomes[1].statusCode == 200)
        let requests = fixture.receiver.requests
        #expect(requests.count == 2)
        #expect(requests.map { $0.headers["webhook-id"] } == ["evt_1", "evt_1"])
        // Not before it was due.
        #expect(Double(requests[1].receivedAt - requests[0].receivedAt) / 1e9 >= 5 * scale - 0.005)
    }

    @Test func theEighthFailedAttemptIsTheLast() throws {
        // Scaled so that the whole schedule (27.6 hours) takes about a second.
        let fixture = try DispatcherFixture(settings: DispatcherFixture.settings { $0.retryScale = 0.00001 }) { _, _ in
            .status(503)
        }
        defer { fixture.stop() }
        fixture.queue.add(fixture.delivery(1))
        try fixture.start()
        #expect(fixture.queue.waitForOutcomes(8))
        ThisProcess.sleep(milliseconds: 300)
        let outcomes = fixture.queue.outcomes
        #expect(outcomes.count == 8)
        #expect(outcomes.allSatisfy { !$0.succeeded && $0.statusCode == 503 })
        #expect(outcomes.dropLast().allSatisfy { $0.nextAttemptAt != nil })
        #expect(outcomes.last?.nextAttemptAt == nil)
        #expect(fixture.receiver.requests.count == 8)
    }

    @Test func aSilentReceiverIsATimeoutWithinTheTimeout() throws {
        let fixture = try DispatcherFixture(settings: DispatcherFixture.settings { $0.timeoutSeconds = 1 }) { _, _ in
            TestReceiver.Reply(body: "too late", delayMilliseconds: 4000)
        }
        defer { fixture.stop() }
        fixture.queue.add(fixture.delivery(1))
        let started = MonotonicClock.nanoseconds()
        try fixture.start()
        #expect(fixture.queue.waitForOutcomes(1, seconds: 3))
        let elapsed = millisecondsSince(started)
        let outcome = try #require(fixture.queue.outcomes.first)
        #expect(!outcome.succeeded && outcome.statusCode == nil)
        #expect(outcome.error?.contains("timed out") == true, "\(outcome.error ?? "")")
        #expect(outcome.durationMilliseconds >= 990 && outcome.durationMilliseconds < 1500)
        #expect(elapsed < 2500, "recorded after \(elapsed) ms")
        #expect(outcome.nextAttemptAt != nil)
        #expect(fixture.metrics.attemptKinds == ["timeout"])
    }

    @Test func aRedirectIsAFailedAttemptAndNotFollowed() throws {
        let fixture = try DispatcherFixture { request, _ in
            request.path == "/hook" ? TestReceiver.Reply(status: 302, headers: [("location", "/elsewhere")]) : .ok
        }
        defer { fixture.stop() }
        fixture.queue.add(fixture.delivery(1))
        try fixture.start()
        #expect(fixture.queue.waitForOutcomes(1))
        let outcome = fixture.queue.outcomes[0]
        #expect(!outcome.succeeded)
        #expect(outcome.statusCode == 302)
        #expect(outcome.error == "HTTP 302 (redirects are not followed)")
        ThisProcess.sleep(milliseconds: 100)
        #expect(fixture.receiver.requests.map(\.path) == ["/hook"])
        #expect(fixture.metrics.attemptKinds == ["http_error"])
    }

    @Test func aHugeAnswerIsCutAt64KiBWithoutFailingA200() throws {
        let fixture = try DispatcherFixture { _, _ in TestReceiver.Reply(fillerBytes: 10 * 1024 * 1024) }
        defer { fixture.stop() }
        fixture.queue.add(fixture.delivery(1))
        try fixture.start()
        #expect(fixture.queue.waitForOutcomes(1))
        let outcome = fixture.queue.outcomes[0]
        #expect(outcome.succeeded && outcome.statusCode == 200 && outcome.error == nil)
        #expect(outcome.responseHead == String(repeating: "x", count: 1024))
        #expect(outcome.durationMilliseconds < 2000)
    }

    @Test func aPrivateTargetIsRefusedUnlessAllowed() throws {
        let fixture = try DispatcherFixture(settings: DispatcherFixture.settings { $0.allowPrivateTargets = false })
        defer { fixture.stop() }
        fixture.queue.add(fixture.delivery(1))
        try fixture.start()
        #expect(fixture.queue.waitForOutcomes(1))
        let outcome = fixture.queue.outcomes[0]
        #expect(!outcome.succeeded && outcome.statusCode == nil)
        #expect(outcome.error == "target resolves to a loopback address (127.0.0.1)")
        #expect(outcome.nextAttemptAt != nil)
        #expect(fixture.receiver.acceptedConnections == 0)
        #expect(fixture.metrics.attemptKinds == ["refused_target"])
        // Allowed (every other test here runs so): delivered.
    }

    @Test func anUnusableSecretFailsWithoutARequestAndWithoutShowingIt() throws {
        let fixture = try DispatcherFixture()
        defer { fixture.stop() }
        let broken = "whsec_" + String(repeating: "A", count: 8)
        fixture.queue.add(fixture.delivery(1, secrets: [broken]))
        try fixture.start()
        #expect(fixture.queue.waitForOutcomes(1))
        let outcome = fixture.queue.outcomes[0]
        #expect(!outcome.succeeded)
        #expect(outcome.error?.hasPrefix("a webhook secret's key is 24 to 64 bytes") == true, "\(outcome.error ?? "")")
        #expect(outcome.error?.contains(broken) == false)
        #expect(fixture.receiver.requests.isEmpty)
        #expect(fixture.metrics.attemptKinds == ["invalid_endpoint"])
    }

    @Test func reportsOutcomesRequestTimeAndCommitTo2xxLatency() throws {
        let fixture = try DispatcherFixture { request, _ in
            request.path == "/bad" ? .status(500) : TestReceiver.Reply(body: "ok", delayMilliseconds: 50)
        }
        defer { fixture.stop() }
        fixture.queue.add(fixture.delivery(1, committedSecondsAgo: 2))
        fixture.queue.add(fixture.delivery(2, endpoint: "ep_2", path: "/bad"))
        try fixture.start()
        #expect(fixture.queue.waitForOutcomes(2))
        #expect(fixture.metrics.attemptKinds.sorted() == ["http_error", "success"])
        let latency = try #require(fixture.metrics.latencies.first)
        #expect(fixture.metrics.latencies.count == 1)
        #expect(latency >= 2.05 && latency < 3.5, "\(latency)")
        #expect(fixture.metrics.requestSeconds.allSatisfy { $0 >= 0 && $0 < 2 })
        #expect(fixture.metrics.requestSeconds.max()! >= 0.05)
    }
}
