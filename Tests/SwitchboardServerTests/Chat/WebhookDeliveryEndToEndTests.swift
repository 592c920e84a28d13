import Foundation
import SwitchboardTestSupport
import SwitchboardWebhooks
import Synchronization
import Testing

@testable import SwitchboardServer

/// Webhooks end to end (docs/webhooks.md): a live gateway on a real
/// PostgreSQL, an endpoint made through the API, messages sent over the chat
/// protocol, and a receiver on 127.0.0.1 that checks what arrives.
@Suite(.serialized) struct WebhookDeliveryEndToEndTests {
    private func gateway(_ configure: @escaping (inout Configuration) -> Void = { _ in }) throws -> ChatFixture {
        try ChatFixture(live: true) { configuration in
            configuration.webhooksAllowPrivateTargets = true
            configuration.webhooksRetryDivisor = 1000
            configuration.webhooksPollIntervalMilliseconds = 100
            configuration.chatRatePerSecond = 100_000
            configuration.chatRateBurst = 100_000
            configure(&configuration)
        }
    }

    /// Creates an endpoint for `events` at the receiver; returns its id and secret.
    private func endpoint(
        _ fixture: ChatFixture, _ receiver: TestReceiver, events: [String]
    ) throws -> (id: String, secret: WebhookSecret) {
        let admin = TestTokens.make(role: .admin, workspace: fixture.workspace, sub: "admin-1", name: "Ada")
        let names = events.map { "\"\($0)\"" }.joined(separator: ",")
        let reply = try HTTPTestClient.request(
            fixture.gateway, "POST", "/api/v1/webhooks", token: admin,
            body: #"{"url":"\#(receiver.url)/hook","events":[\#(names)]}"#)
        guard reply.status == 201, let webhook = reply.json["webhook"] as? [String: Any],
            let id = webhook["id"] as? String, let secret = webhook["secret"] as? String
        else { throw TestFailure("creating the endpoint: \(reply.status) \(reply.errorMessage)") }
        return (id, try WebhookSecret(parsing: secret))
    }

    /// Sends `count` messages as a visitor of a new session and waits for each ack; returns the session's id.
    private func converse(_ fixture: ChatFixture, count: Int) throws -> String {
        let visitor = try fixture.client(.visitor, "visitor-1", name: "Vera")
        let session = try fixture.createSession(visitor)
        for index in 0..<count {
            visitor.send([
                "type": "send", "session_id": session, "client_msg_id": "m\(index)", "body": "message \(index)",
            ])
        }
        var acked = 0
        while acked < count {
            if try visitor.next()["type"] as? String == "ack" { acked += 1 }
        }
        return session
    }

    /// The `message.created` requests that arrived, each checked: a valid
    /// signature over its own id, timestamp and body, the id in the header
    /// the body's, the type right.
    private func checked(
        _ requests: [TestReceiver.Request], secret: WebhookSecret
    ) throws -> [(id: String, body: [String: Any])] {
        try requests.map { request in
            let id = try #require(request.headers["webhook-id"])
            let timestamp = try #require(request.headers["webhook-timestamp"].flatMap { Int64($0) })
            let signature = try #require(request.headers["webhook-signature"])
            #expect(
                WebhookSignature.verify(
                    header: signature, id: id, timestamp: timestamp, body: request.body, secret: secret,
                    now: Int64(Date().timeIntervalSince1970)),
                "signature of \(id)")
            let body = try #require(
                try JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any])
            #expect(body["id"] as? String == id && body["type"] as? String == "message.created")
            #expect(request.headers["content-type"] == "application/json")
            return (id, body)
        }
    }

    @Test func everyMessageOfAThousandArrivesOnceSignedWithAUniqueEventID() throws {
        let receiver = try TestReceiver()
        defer { receiver.stop() }
        let fixture = try gateway()
        defer { fixture.stop() }
        let (_, secret) = try endpoint(fixture, receiver, events: ["message.created"])
        let session = try converse(fixture, count: 1000)
        #expect(receiver.waitForRequests(1000, seconds: 60), "\(receiver.requests.count) of 1000 arrived")
        let events = try checked(receiver.requests, secret: secret)
        #expect(Set(events.map(\.id)).count == events.count, "every event id is unique")
        let bodies = Set(
            events.compactMap {
                (($0.body["data"] as? [String: Any])?["message"] as? [String: Any])?["body"] as? String
            })
        #expect(bodies == Set((0..<1000).map { "message \($0)" }))
        #expect(
            events.allSatisfy {
                (($0.body["data"] as? [String: Any])?["session"] as? [String: Any])?["id"] as? String == session
            })
        // Nothing more comes: no event was delivered twice.
        Thread.sleep(forTimeInterval: 0.5)
        #expect(receiver.requests.count == 1000)
    }

    /// While commits keep waking it, the expander starts a pass at most every
    /// `webhooks.backlog_pass_interval_ms`, and the batches committed meanwhile
    /// go in the next pass together (docs/webhooks.md, "Passes a few batches at
    /// a time"). A pass names its events with one prefix (`evt_`, its time and
    /// randomness, then the event's place in the pass), so the prefixes count
    /// the passes.
    @Test func batchesCommittedWithinThePassIntervalAreTakenByOnePass() throws {
        let receiver = try TestReceiver()
        defer { receiver.stop() }
        let interval = 1000
        let fixture = try gateway { $0.webhooksBacklogPassIntervalMilliseconds = interval }
        defer { fixture.stop() }
        _ = try endpoint(fixture, receiver, events: ["message.created"])
        let visitor = try fixture.client(.visitor, "visitor-1", name: "Vera")
        let session = try fixture.createSession(visitor)
        let count = 20
        let started = Date()
        // Each message acknowledged before the next is sent: a batch, a commit and a wake-up each.
        for index in 0..<count {
            visitor.send(["type": "send", "session_id": session, "client_msg_id": "m\(index)", "body": "b\(index)"])
            while try visitor.next()["type"] as? String != "ack" {}
        }
        let sendingMilliseconds = Int(Date().timeIntervalSince(started) * 1000)
        #expect(receiver.waitForRequests(count, seconds: 30), "\(receiver.requests.count) of \(count) arrived")
        let passes = Set(receiver.requests.compactMap { $0.headers["webhook-id"].map { String($0.prefix(26)) } })
        // The first message's pass starts at once; every later one at least an interval after the last.
        let most = 2 + sendingMilliseconds / interval
        #expect(most < count / 2, "sending took \(sendingMilliseconds) ms: too slow to tell passes apart")
        #expect(passes.count <= most, "\(passes.count) passes for \(count) batches sent in \(sendingMilliseconds) ms")
    }

    @Test func aSlowEndpointDoesNotHoldBackAnotherEndpointsEvents() throws {
        // Four seconds an answer at one endpoint, none at the other; both take every message.
        let slow = try TestReceiver { _, _ in TestReceiver.Reply(body: "ok", delayMilliseconds: 4000) }
        defer { slow.stop() }
        let quick = try TestReceiver()
        defer { quick.stop() }
        // The dispatcher holds 64 deliveries, 16 of one endpoint, and runs 2 per endpoint: the slow
        // one could fill all 64 if what the expander hands over ignored the per-endpoint share.
        let fixture = try gateway { configuration in
            configuration.webhooksMaxConcurrent = 8
            configuration.webhooksMaxConcurrentPerEndpoint = 2
            configuration.webhooksHoldRounds = 8
            // Held deliveries that cannot start in time are given back after 15 s (the timeout).
            configuration.webhooksTimeoutSeconds = 15
        }
        defer { fixture.stop() }
        _ = try endpoint(fixture, slow, events: ["message.created"])
        let (_, secret) = try endpoint(fixture, quick, events: ["message.created"])
        let started = Date()
        _ = try converse(fixture, count: 500)
        // Held back, the quick endpoint would get 2 events every 4 s (as the slow one's requests end)
        // once the slow one's deliveries filled the room, until they were given back 15 s on.
        // Unloaded, all 500 come within two seconds; the bound leaves room for a machine busy with
        // other tests.
        let arrived = quick.waitForRequests(500, seconds: 10)
        let seconds = Date().timeIntervalSince(started)
        #expect(arrived, "\(quick.requests.count) of 500 arrived in \(seconds) s")
        let events = try checked(quick.requests, secret: secret)
        #expect(Set(events.map(\.id)).count == 500, "every event once")
        // Meanwhile the slow endpoint had its two requests at a time, never more.
        #expect(slow.maxInProgress <= 2 && slow.requests.count >= 2, "\(slow.maxInProgress), \(slow.requests.count)")
    }

    /// With every endpoint that takes message events full, a wait for room
    /// that runs out does not write the backlog due: nobody here could take
    /// those deliveries until room frees, and each would cost a claim then.
    /// The backlog waits and goes out handed over as room frees. With
    /// another endpoint that has room, the wait runs out as before
    /// (`aSlowEndpointDoesNotHoldBackAnotherEndpointsEvents`).
    @Test func aFullEndpointWithNobodyElseToServeLeavesTheBacklogUnexpanded() throws {
        let open = Atomic<Bool>(false)
        let receiver = try TestReceiver { _, _ in
            let until = Date().addingTimeInterval(30)
            while !open.load(ordering: .acquiring) && Date() < until { Thread.sleep(forTimeInterval: 0.005) }
            return .ok
        }
        defer { receiver.stop() }
        defer { open.store(true, ordering: .releasing) }
        // 16 held of the endpoint at most, 2 of them in flight.
        let fixture = try gateway { configuration in
            configuration.webhooksMaxConcurrent = 8
            configuration.webhooksMaxConcurrentPerEndpoint = 2
            configuration.webhooksHoldRounds = 8
            configuration.webhooksTimeoutSeconds = 30
        }
        defer { fixture.stop() }
        let (_, secret) = try endpoint(fixture, receiver, events: ["message.created"])
        _ = try converse(fixture, count: 100)
        // Twenty times the 50-ms wait.
        Thread.sleep(forTimeInterval: 1)
        let db = try fixture.database.connect()
        // Handed over, they are in handoffs, with no row until their outcome (migration 39).
        let made = try db.query(
            "SELECT (SELECT count(*) FROM webhook_deliveries), (SELECT sum(outstanding) FROM webhook_handoffs)")
        #expect(made.int(0, 0) == 0, "\(made.int(0, 0) ?? -1) deliveries written due")
        #expect(made.int(0, 1) == 16, "\(made.int(0, 1) ?? -1) deliveries made: the endpoint's share, handed over")
        open.store(true, ordering: .releasing)
        #expect(receiver.waitForRequests(100, seconds: 20), "\(receiver.requests.count) of 100 arrived")
        let events = try checked(receiver.requests, secret: secret)
        #expect(Set(events.map(\.id)).count == 100, "every event once")
    }

    @Test func aReceiverFailingTheFirstAttemptsGetsTheEventOnTheRetrySchedule() throws {
        // 500 for the first two attempts of every event, then 200.
        let receiver = try TestReceiver { _, index in index < 2 ? .status(500, body: "down") : .ok }
        defer { receiver.stop() }
        let fixture = try gateway()
        defer { fixture.stop() }
        let (id, secret) = try endpoint(fixture, receiver, events: ["message.created"])
        _ = try converse(fixture, count: 1)
        #expect(receiver.waitForRequests(3, seconds: 20))
        let requests = receiver.requests
        #expect(requests.count == 3)
        #expect(Set(try checked(requests, secret: secret).map(\.id)).count == 1, "the same event each time")
        // The schedule divided by 1000: 5 s -> 5 ms, then 5 min -> 300 ms.
        let gaps = zip(requests.dropFirst(), requests).map { Double($0.receivedAt - $1.receivedAt) / 1e9 }
        #expect(gaps.count == 2 && gaps[1] >= 0.29, "the second retry waits 300 ms: \(gaps)")
        let admin = TestTokens.make(role: .admin, workspace: fixture.workspace, sub: "admin-1", name: "Ada")
        // The receiver has its answer before the gateway has stored the outcome: the log is read until it has.
        var delivery: [String: Any] = [:]
        for _ in 0..<50 {
            let log = try HTTPTestClient.request(
                fixture.gateway, "GET", "/api/v1/webhooks/\(id)/deliveries", token: admin)
            delivery = try #require((log.json["deliveries"] as? [[String: Any]])?.first)
            if delivery["status"] as? String != "pending" { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(delivery["status"] as? String == "succeeded" && delivery["attempts"] as? Int == 3, "\(delivery)")
    }
}
