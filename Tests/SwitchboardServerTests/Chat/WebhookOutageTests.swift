import Foundation
import SwitchboardTestSupport
import SwitchboardWebhooks
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Webhooks across what production does to a gateway (docs/webhooks.md, "At
/// least once"): killed with work pending, and two nodes dispatching from one
/// outbox. Gateways run as processes of their own on a real PostgreSQL.
@Suite(.serialized) struct WebhookOutageTests {
    /// Each test's gateways; `timeoutSeconds` bounds one request to the receiver.
    static func toml(timeoutSeconds: Int = 2) -> String {
        """
        [chat]
        rate_per_second = 1000000
        rate_burst = 1000000
        [webhooks]
        allow_private_targets = true
        poll_interval_ms = 100
        timeout_s = \(timeoutSeconds)
        max_concurrent_per_endpoint = 2
        retry_divisor = 1000
        """
    }

    /// A gateway process reached by port, for `HTTPTestClient`.
    private struct PortGateway: TestGateway {
        let port: UInt16
        func connect() throws -> any ClientStream { try RawClient(port: port, timeoutSeconds: 10) }
        func stop() {}
    }

    /// What a receiver keeping an idempotent view saw: every arrival, each
    /// event id once, and whether one id was ever being handled twice at once.
    private final class IdempotentView: Sendable {
        private struct State {
            var arrivals = 0
            var unique: Set<String> = []
            var inFlight: Set<String> = []
            var overlaps: [String] = []
        }
        private let state = Mutex(State())
        /// How long each event takes to handle; a test may change it midway.
        let handlingMilliseconds: Atomic<Int>
        /// While closed, events are held (for a minute at most) before they are handled.
        let gate: Atomic<Bool>

        init(handlingMilliseconds: Int, gateOpen: Bool = true) {
            self.handlingMilliseconds = Atomic(handlingMilliseconds)
            gate = Atomic(gateOpen)
        }

        func reply(_ request: TestReceiver.Request) -> TestReceiver.Reply {
            let id = request.headers["webhook-id"] ?? ""
            state.withLock { state in
                state.arrivals += 1
                if !state.inFlight.insert(id).inserted { state.overlaps.append(id) }
            }
            let held = Date().addingTimeInterval(60)
            while !gate.load(ordering: .acquiring) && Date() < held { usleep(2_000) }
            usleep(UInt32(handlingMilliseconds.load(ordering: .relaxed) * 1000))
            state.withLock { state in
                state.inFlight.remove(id)
                state.unique.insert(id)
            }
            return .ok
        }

        var unique: Int { state.withLock { $0.unique.count } }
        var arrivals: Int { state.withLock { $0.arrivals } }
        var overlaps: [String] { state.withLock { $0.overlaps } }
        var inFlight: Int { state.withLock { $0.inFlight.count } }

        func wait(forUnique count: Int, seconds: Double) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while unique < count {
                if Date() > deadline { return false }
                usleep(20_000)
            }
            return true
        }
    }

    private func makeEndpoint(port: UInt16, workspace: String, receiver: TestReceiver) throws -> String {
        let admin = TestTokens.make(
            role: .admin, workspace: workspace, sub: "admin-1", secret: String(repeating: "s", count: 32))
        let reply = try HTTPTestClient.request(
            PortGateway(port: port), "POST", "/api/v1/webhooks", token: admin,
            body: #"{"url":"\#(receiver.url)/hook","events":["message.created"]}"#)
        guard reply.status == 201, let secret = (reply.json["webhook"] as? [String: Any])?["secret"] as? String else {
            throw TestFailure("creating the endpoint: \(reply.status) \(reply.errorMessage)")
        }
        return secret
    }

    /// `count` messages from one visitor of a new session, every one acked (so committed, with its event).
    private func converse(port: UInt16, workspace: String, count: Int) throws {
        let token = TestTokens.make(
            role: .visitor, workspace: workspace, sub: "visitor-1", secret: String(repeating: "s", count: 32))
        let visitor = try ChatClient(port: port, token: token, timeoutSeconds: 30)
        let reply = try visitor.request(["type": "session.create", "title": "Broken parcel"])
        let session = try #require((reply["session"] as? [String: Any])?["id"] as? String)
        var acked = 0
        for index in 0..<count {
            visitor.send(["type": "send", "session_id": session, "client_msg_id": "m\(index)", "body": "m\(index)"])
            // A window of 500 unacked sends, as a client would keep.
            while index - acked >= 500 { if try visitor.next()["type"] as? String == "ack" { acked += 1 } }
        }
        while acked < count { if try visitor.next()["type"] as? String == "ack" { acked += 1 } }
    }

    @Test func aGatewayKilledWithTenThousandEventsPendingDeliversEveryOneAfterItsRestart() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let workspace = UUID().uuidString.lowercased()
        // A receiver slow enough (200 ms an event, two at a time: 10 a second)
        // that most events are pending at the kill however long sending them
        // takes on a loaded machine; fast again for the second gateway.
        let view = IdempotentView(handlingMilliseconds: 200)
        let receiver = try TestReceiver { request, _ in view.reply(request) }
        defer { receiver.stop() }
        let first = try GatewayProcess(databaseURL: database.url, toml: Self.toml())
        let secretText = try makeEndpoint(port: first.port, workspace: workspace, receiver: receiver)
        try converse(port: first.port, workspace: workspace, count: 10_000)
        let db = try database.connect()
        // Pending is every event not yet delivered: a delivery row waiting, or a
        // message whose event is still in the backlog (the expander yields while
        // the writer is busy, so on a loaded machine most wait there).
        let succeeded =
            try db.query("SELECT count(*) FROM webhook_deliveries WHERE status = 'succeeded'").int(0, 0) ?? 10_000
        let unexpanded = 10_000 - (try db.query("SELECT count(*) FROM webhook_events").int(0, 0) ?? 10_000)
        let pending = 10_000 - succeeded
        #expect(
            pending >= 5_000,
            "most events still undelivered when the gateway is killed (\(pending), \(unexpanded) of them in the backlog)"
        )
        first.process.stop(signal: SIGKILL)
        let deliveredBefore = view.unique
        view.handlingMilliseconds.store(2, ordering: .relaxed)

        let second = try GatewayProcess(databaseURL: database.url, toml: Self.toml())
        defer { second.stop() }
        #expect(view.wait(forUnique: 10_000, seconds: 120), "\(view.unique) of 10,000 arrived")
        #expect(view.unique == 10_000 && view.arrivals >= 10_000)
        // The receiver counts an event before its reply reaches the gateway,
        // so the last outcomes may still be on their way into the database.
        var unsettled = -1
        let deadline = Date().addingTimeInterval(15)
        repeat {
            unsettled =
                try db.query("SELECT count(*) FROM webhook_deliveries WHERE status <> 'succeeded'").int(0, 0) ?? -1
            if unsettled == 0 { break }
            usleep(50_000)
        } while Date() < deadline
        #expect(unsettled == 0, "\(unsettled) deliveries not succeeded")
        #expect(try db.query("SELECT count(*) FROM webhook_events").int(0, 0) == 10_000)
        // Every arrival is signed with the endpoint's secret.
        let secret = try WebhookSecret(parsing: secretText)
        let now = Int64(Date().timeIntervalSince1970)
        let bad = receiver.requests.filter { request in
            !WebhookSignature.verify(
                header: request.headers["webhook-signature"] ?? "", id: request.headers["webhook-id"] ?? "",
                timestamp: Int64(request.headers["webhook-timestamp"] ?? "") ?? 0, body: request.body, secret: secret,
                now: now, tolerance: 600)
        }
        #expect(bad.isEmpty, "\(bad.count) arrivals with a bad signature")
        print(
            "webhooks after SIGKILL: \(pending) pending at the kill (\(unexpanded) in the backlog), "
                + "\(deliveredBefore) delivered before it, "
                + "\(view.arrivals) arrivals for 10,000 events (\(view.arrivals - 10_000) again after the restart)")
    }

    @Test func twoNodesDispatchingTogetherNeverHoldOneDeliveryTwiceAtOnce() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let workspace = UUID().uuidString.lowercased()
        // The receiver holds every event until both nodes have some in flight: the node that
        // stores the messages could otherwise send them all itself before the other's poll
        // (how soon depends on the machine's speed). Requests may wait that long (timeout_s).
        let view = IdempotentView(handlingMilliseconds: 3, gateOpen: false)
        let receiver = try TestReceiver { request, _ in view.reply(request) }
        defer { receiver.stop() }
        defer { view.gate.store(true, ordering: .releasing) }
        let toml = Self.toml(timeoutSeconds: 90)
        let first = try GatewayProcess(databaseURL: database.url, toml: toml)
        defer { first.stop() }
        let second = try GatewayProcess(databaseURL: database.url, toml: toml)
        defer { second.stop() }
        _ = try makeEndpoint(port: first.port, workspace: workspace, receiver: receiver)
        try converse(port: first.port, workspace: workspace, count: 2_000)
        // Each node holds at most max_concurrent_per_endpoint (2) of them: more means both.
        let bothSending = Date().addingTimeInterval(30)
        while view.inFlight < 3 && Date() < bothSending { usleep(10_000) }
        #expect(view.inFlight >= 3, "\(view.inFlight) events held at the receiver: one node sends alone")
        view.gate.store(true, ordering: .releasing)
        #expect(view.wait(forUnique: 2_000, seconds: 60), "\(view.unique) of 2,000 arrived")
        #expect(view.overlaps.isEmpty, "events handled twice at once: \(view.overlaps.prefix(5))")
        #expect(view.arrivals == 2_000, "no event sent twice: \(view.arrivals) arrivals")
        // Both nodes took part, by their own counts.
        let successes = try [first.port, second.port].map { port in
            let metrics = try HTTPTestClient.request(PortGateway(port: port), "GET", "/metrics")
            let line = String(decoding: metrics.body, as: UTF8.self).split(separator: "\n")
                .first { $0.hasPrefix(#"switchboard_webhook_attempts_total{outcome="success"}"#) }
            return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
        }
        #expect(successes.allSatisfy { $0 > 0 } && successes.reduce(0, +) == 2_000, "\(successes)")
    }
}
