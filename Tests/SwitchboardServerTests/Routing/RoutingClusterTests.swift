import Foundation
import SwitchboardAuth
import SwitchboardPostgres
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Routing across three gateway processes on one database (issue 32's
/// proofs): capacity and first come, first served with passes on every
/// node at once; the queue draining in its order as sessions close; a node
/// killed with SIGKILL giving its operators' sessions to the others after
/// the grace; and a page reload inside the grace moving nothing.
@Suite(.serialized) struct RoutingClusterTests {
    /// The nodes' `auth.jwt_secret` (`GatewayProcess`).
    static let secret = String(repeating: "s", count: 32)
    /// A short grace, so that the tests wait seconds, not half a minute.
    static let graceSeconds = 3

    final class Cluster {
        let database: TestDatabase
        let nodes: [GatewayProcess]
        let admin: PostgresConnection
        let workspace = UUID().uuidString.lowercased()

        init(nodes count: Int = 3) throws {
            database = try TestDatabase(migrated: true)
            admin = try database.connect()
            let url = database.url
            nodes = try (0..<count).map { index in
                try GatewayProcess(
                    databaseURL: url,
                    toml: """
                        [chat]
                        rate_per_second = 100000
                        rate_burst = 100000
                        [cluster]
                        bus = "postgres"
                        node_id = "node-\(index)"
                        [routing]
                        offline_grace_s = \(RoutingClusterTests.graceSeconds)
                        heartbeat_s = 1
                        """)
            }
        }

        func stop() {
            for node in nodes { node.stop() }
            database.drop()
        }

        func client(_ role: Role, _ sub: String, node: Int) throws -> ChatClient {
            let token = TestTokens.make(
                role: role, workspace: workspace, sub: sub, name: sub, secret: RoutingClusterTests.secret)
            return try ChatClient(port: nodes[node].port, token: token, timeoutSeconds: 20)
        }

        /// Operators connected (`placement`: operator id -> node), recorded as
        /// connected by their nodes, and online as a console makes them (`presence.set`).
        func operators(_ placement: [(String, Int)]) throws -> [String: ChatClient] {
            var clients: [String: ChatClient] = [:]
            for (id, node) in placement { clients[id] = try client(.operator, id, node: node) }
            try waitFor("\(placement.count) operators recorded as connected") {
                try count(
                    "SELECT count(*) FROM operators WHERE workspace_id = $1::uuid AND connected_until > now()")
                    == placement.count
            }
            for (id, client) in clients {
                let answer = try client.request(["type": "presence.set", "status": "online"])
                let state = answer["operator"] as? [String: Any]
                guard answer["type"] as? String == "presence", state?["status"] as? String == "online",
                    state?["id"] as? String == id
                else { throw TestFailure("presence.set: \(answer)") }
            }
            return clients
        }

        /// `count` visitors on the nodes in turn, each opening a session, then all writing at once.
        func visitorsWriting(_ count: Int, nodes: [Int]) throws -> [ChatClient] {
            var visitors: [ChatClient] = []
            var sessions: [String] = []
            for index in 0..<count {
                let visitor = try client(.visitor, "v-\(index)", node: nodes[index % nodes.count])
                let reply = try visitor.request(["type": "session.create", "title": "Visitor \(index)"])
                guard let id = (reply["session"] as? [String: Any])?["id"] as? String else {
                    throw TestFailure("session.create: \(reply)")
                }
                visitors.append(visitor)
                sessions.append(id)
            }
            for (visitor, session) in zip(visitors, sessions) {
                visitor.send(["type": "send", "session_id": session, "client_msg_id": "hello", "body": "Hello?"])
            }
            for visitor in visitors { _ = try visitor.next("ack") }
            return visitors
        }

        func count(_ sql: String, _ parameters: [String?]? = nil) throws -> Int {
            try admin.query(sql, parameters ?? [workspace]).int(0, 0) ?? -1
        }

        func column(_ sql: String) throws -> [String] {
            try admin.query(sql, [workspace]).rows.map { $0.first.flatMap { $0 } ?? "" }
        }

        var assigned: Int {
            get throws {
                try count("SELECT count(*) FROM chat_sessions WHERE workspace_id = $1::uuid AND status = 'assigned'")
            }
        }

        var queued: [String] {
            get throws {
                try column(
                    """
                    SELECT id::text FROM chat_sessions
                     WHERE workspace_id = $1::uuid AND status = 'open' AND assigned_operator_id IS NULL
                       AND waiting_since IS NOT NULL
                     ORDER BY waiting_since, id
                    """)
            }
        }

        /// Open assigned sessions per operator.
        var loads: [String: Int] {
            get throws {
                let rows = try admin.query(
                    """
                    SELECT assigned_operator_id, count(*) FROM chat_sessions
                     WHERE workspace_id = $1::uuid AND status = 'assigned' GROUP BY 1
                    """, [workspace]
                ).rows
                return Dictionary(uniqueKeysWithValues: rows.map { ($0[0] ?? "", Int($0[1] ?? "") ?? 0) })
            }
        }

        /// Sessions with more than one `assigned` event from routing.
        var assignedTwice: Int {
            get throws {
                try count(
                    """
                    SELECT count(*) FROM (
                        SELECT c.session_id FROM chats c
                         WHERE c.workspace_id = $1::uuid AND c.kind = 'event' AND c.meta ->> 'action' = 'assigned'
                         GROUP BY c.session_id HAVING count(*) > 1) twice
                    """)
            }
        }

        func waitFor(_ what: String, seconds: Double = 20, _ condition: () throws -> Bool) throws {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if try condition() { return }
                Thread.sleep(forTimeInterval: 0.1)
            }
            throw TestFailure("not within \(seconds) s: \(what)")
        }
    }

    @Test func twoHundredAtOnceFillTenOperatorsOfFiveAndTheQueueDrainsInOrder() throws {
        let cluster = try Cluster()
        defer { cluster.stop() }
        let placement = (0..<10).map { (String(format: "op%02d", $0), $0 < 4 ? 0 : $0 < 7 ? 1 : 2) }
        let operators = try cluster.operators(placement)
        let visitors = try cluster.visitorsWriting(200, nodes: [0, 1, 2])

        try cluster.waitFor("50 assigned") { try cluster.assigned == 50 }
        // Heartbeats and triggers go on on every node: still exactly that.
        Thread.sleep(forTimeInterval: 2.5)
        #expect(try cluster.assigned == 50)
        #expect(try cluster.queued.count == 150)
        #expect(try cluster.loads == Dictionary(uniqueKeysWithValues: placement.map { ($0.0, 5) }), "no one past 5")
        #expect(try cluster.assignedTwice == 0, "no session assigned twice")
        // First come, first served is held on the drain below: while 200 arrive at once on three
        // nodes, a pass can only see the batches committed before it, and a batch's waiting_since
        // is its transaction's start, so one committed later may carry an earlier time.

        // Closing sessions frees places: the queue's head takes them, in order.
        for closing in [10, 20] {
            let expected = Set(try cluster.queued.prefix(closing))
            let toClose = try cluster.column(
                """
                SELECT id::text FROM chat_sessions WHERE workspace_id = $1::uuid AND status = 'assigned'
                 ORDER BY assigned_operator_id, id
                """
            ).prefix(closing)
            for (index, session) in toClose.enumerated() {
                let closer = operators[placement[index % placement.count].0]!
                let reply = try closer.request(["type": "session.close", "session_id": session])
                #expect(reply["type"] as? String == "session.updated", "\(reply)")
            }
            try cluster.waitFor("the next \(closing) assigned") {
                let (assigned, queued) = (try cluster.assigned, try cluster.queued)
                return assigned == 50 && Set(queued).isDisjoint(with: expected)
            }
            #expect(try cluster.loads.values.allSatisfy { $0 <= 5 })
            #expect(try cluster.assignedTwice == 0)
        }
        #expect(try cluster.queued.count == 120)
        _ = visitors
    }

    @Test func aKilledNodesOperatorsAreRequeuedAfterTheGraceAndAReloadMovesNothing() throws {
        let cluster = try Cluster()
        defer { cluster.stop() }
        let placement = [("a0", 0), ("a1", 0), ("b0", 1), ("b1", 1), ("c0", 2), ("c1", 2)]
        var operators = try cluster.operators(placement)
        // Visitors on the nodes that stay.
        let visitors = try cluster.visitorsWriting(12, nodes: [1, 2])
        try cluster.waitFor("12 assigned") { try cluster.assigned == 12 }
        let before = try cluster.loads
        #expect(before.values.allSatisfy { $0 == 2 }, "least busy: two each, \(before)")
        let held = try cluster.column(
            """
            SELECT id::text FROM chat_sessions WHERE workspace_id = $1::uuid AND assigned_operator_id IN ('a0', 'a1')
            """)
        let reloaded = try cluster.column(
            "SELECT id::text FROM chat_sessions WHERE workspace_id = $1::uuid AND assigned_operator_id = 'c0'")

        // c0 reloads its page: gone half a second, back on the same node.
        operators["c0"] = nil  // its socket closes with it
        Thread.sleep(forTimeInterval: 0.5)
        operators["c0"] = try cluster.client(.operator, "c0", node: 2)

        // The node holding a0 and a1 dies without a word.
        cluster.nodes[0].process.stop(signal: SIGKILL)
        let killed = Date()
        // Their grace runs to connected_until, set by the dead node's last heartbeat: fixed now.
        let graceEnds = try #require(
            try cluster.column(
                "SELECT min(connected_until)::text FROM operators WHERE workspace_id = $1::uuid AND id IN ('a0', 'a1')"
            ).first)
        let insideTheGrace = "SELECT (now() < $2::timestamptz AND $1::uuid IS NOT NULL)::int"
        Thread.sleep(forTimeInterval: 0.5)
        let a0sLoad = try cluster.loads["a0"]
        // (Read first, so that a grace not yet over after it was not over for it either.)
        if try cluster.count(insideTheGrace, [cluster.workspace, graceEnds]) == 1 {
            #expect(a0sLoad == 2, "still theirs inside the grace")
        }

        try cluster.waitFor("a0's and a1's sessions with the others", seconds: 30) {
            let (loads, assigned) = (try cluster.loads, try cluster.assigned)
            return loads["a0"] == nil && loads["a1"] == nil && assigned == 12
        }
        let took = Date().timeIntervalSince(killed)
        print("routing: the killed node's operators' sessions were with the others \(took) s after SIGKILL")
        let early = try cluster.count(
            """
            SELECT count(*) FROM chats
             WHERE workspace_id = $1::uuid AND kind = 'event' AND meta ->> 'action' = 'requeued'
               AND created_at < $2::timestamptz - interval '1 s'
            """, [cluster.workspace, graceEnds])
        // (A second's slack: an event's created_at is its transaction's start, the pass's check its statement's.)
        #expect(early == 0, "\(early) sessions requeued before the grace ended (\(graceEnds))")
        let after = try cluster.loads
        #expect(after.values.allSatisfy { $0 <= 5 } && after.values.reduce(0, +) == 12, "\(after)")
        let requeued = Set(
            try cluster.column(
                """
                SELECT DISTINCT session_id::text FROM chats
                 WHERE workspace_id = $1::uuid AND kind = 'event' AND meta ->> 'action' = 'requeued'
                """))
        #expect(requeued == Set(held), "exactly the dead node's operators' sessions went back to the queue")
        let stillC0 = try cluster.column(
            "SELECT id::text FROM chat_sessions WHERE workspace_id = $1::uuid AND assigned_operator_id = 'c0'")
        #expect(Set(reloaded).isSubset(of: Set(stillC0)), "the reload inside the grace moved nothing of c0's")
        #expect(try cluster.assignedTwice == held.count, "each requeued one assigned once more, the rest once")
        _ = visitors
    }
}
