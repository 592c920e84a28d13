import Foundation
import SwitchboardChat
import SwitchboardPostgres
import SwitchboardReaders
import SwitchboardRouting
import Testing

/// Presence in the database: a node's heartbeat writes its whole view
/// (new operators' rows, its connections, everyone's grace), forgets
/// nodes that went silent, and finds the workspaces with work; statuses,
/// capacities and presence read back.
@Suite struct PresenceQueryTests {
    static let settings = RoutingSettings(offlineGraceSeconds: 30, heartbeatSeconds: 5)

    private func connection(
        _ workspace: String, _ id: String, role: String = "operator", count: Int = 1
    )
        -> NodeConnection
    {
        NodeConnection(
            workspaceID: workspace, staff: Participant(id: id, role: role, name: "N \(id)"), connections: count)
    }

    private func rows(_ fixture: ReadersFixture, _ sql: String) throws -> [[String?]] {
        try fixture.admin.query(sql).rows
    }

    /// Runs `work` with queries of its own on a new thread; the outcome is
    /// "ok" or the error once it ends.
    private func onAThread(
        _ fixture: ReadersFixture, _ work: @escaping @Sendable (ChatQueries) throws(QueryError) -> Void
    ) -> Outcome {
        let url = fixture.database.url
        let outcome = Outcome()
        Thread {
            do throws(QueryError) {
                try work(ChatQueries(databaseURL: url))
                outcome.set("ok")
            } catch {
                outcome.set(error.description)
            }
        }.start()
        return outcome
    }

    /// Joins planned as nested loops in the fixture's database (for sessions
    /// that start after this: not `fixture.queries`' if it has run already).
    private func forceNestedLoops(_ fixture: ReadersFixture) throws {
        try fixture.admin.query(
            """
            DO $$ BEGIN
                EXECUTE format('ALTER DATABASE %I SET enable_hashjoin = off', current_database());
                EXECUTE format('ALTER DATABASE %I SET enable_mergejoin = off', current_database());
            END $$
            """)
    }

    /// Whether a readers' connection to the fixture's database (tests run
    /// side by side, each in a database of its own) comes to wait for a row
    /// lock within five seconds.
    private func readerWaitsForALock(_ fixture: ReadersFixture) throws -> Bool {
        for _ in 0..<100 {
            Thread.sleep(forTimeInterval: 0.05)
            let waiting = try rows(
                fixture,
                """
                SELECT 1 FROM pg_stat_activity
                 WHERE datname = current_database() AND application_name = 'switchboard-reader'
                   AND wait_event_type = 'Lock'
                """)
            if waiting.count == 1 { return true }
        }
        return false
    }

    @Test func aHeartbeatWritesTheNodesWholeViewAndGivesTheLeaversTheirGrace() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let workspace = fixture.workspaceID
        let first = [connection(workspace, "op-ken", count: 2), connection(workspace, "ad-ann", role: "admin")]
        #expect(try fixture.queries.heartbeat(node: "node-a", connections: first, settings: Self.settings).isEmpty)
        #expect(
            try rows(fixture, "SELECT id, name, role FROM operators ORDER BY id")
                == [["ad-ann", "N ad-ann", "admin"], ["op-ken", "N op-ken", "operator"]],
            "operators new to the database are recorded, with their workspace")
        #expect(
            try rows(fixture, "SELECT node_id, operator_id, connections::text FROM operator_connections ORDER BY 2")
                == [["node-a", "ad-ann", "1"], ["node-a", "op-ken", "2"]])
        let grace =
            "SELECT id FROM operators WHERE connected_until BETWEEN now() + interval '29 s' AND now() + interval '31 s' ORDER BY id"
        #expect(try rows(fixture, grace) == [["ad-ann"], ["op-ken"]])

        // Ann's last connection here closed a while ago: its grace runs from this beat.
        try fixture.admin.query("UPDATE operators SET connected_until = now() + interval '3 s' WHERE id = 'ad-ann'")
        _ = try fixture.queries.heartbeat(
            node: "node-a", connections: [connection(workspace, "op-ken")], settings: Self.settings)
        #expect(try rows(fixture, "SELECT operator_id FROM operator_connections") == [["op-ken"]])
        #expect(try rows(fixture, grace) == [["ad-ann"], ["op-ken"]])

        // Another node that has not beaten for ten heartbeats is gone, with its connections.
        _ = try fixture.queries.heartbeat(
            node: "node-b", connections: [connection(workspace, "op-olga")], settings: Self.settings)
        try fixture.admin.query(
            "UPDATE gateway_nodes SET heartbeat_at = now() - interval '51 s' WHERE node_id = 'node-b'")
        _ = try fixture.queries.heartbeat(
            node: "node-a", connections: [connection(workspace, "op-ken")], settings: Self.settings)
        #expect(try rows(fixture, "SELECT node_id FROM gateway_nodes") == [["node-a"]])
        #expect(try rows(fixture, "SELECT operator_id FROM operator_connections") == [["op-ken"]])
    }

    /// A heartbeat that loses a deadlock (another transaction, as a routing
    /// pass does, updating the same operators' rows in the other order) runs
    /// again once the other has gone on, instead of failing the beat.
    @Test func aHeartbeatThatLosesADeadlockRunsAgain() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let workspace = fixture.workspaceID
        let both = [connection(workspace, "op-b"), connection(workspace, "op-a")]
        _ = try fixture.queries.heartbeat(node: "node-a", connections: both, settings: Self.settings)
        // Both graces due for renewal, so that the next beat locks both rows (a fresh one it leaves alone).
        try fixture.admin.query("UPDATE operators SET connected_until = now() + interval '1 s'")
        // The backend that finds a deadlock is the one whose deadlock_timeout runs out
        // first once the cycle exists: the beat's (a new connection, 8 s), not the other's
        // (60 s), however long this test takes to close the cycle after the beat began
        // waiting. At the default 1 s for both, a slow machine (CI under CPU steal) closed
        // it after the beat's only check, and the other transaction was rolled back instead.
        try fixture.admin.query(
            """
            DO $$ BEGIN
                EXECUTE format('ALTER DATABASE %I SET deadlock_timeout = ''8s''', current_database());
            END $$
            """)
        let other = try fixture.database.connect()
        try other.execute("SET deadlock_timeout = '60s'")
        try other.execute("BEGIN")
        try other.query("UPDATE operators SET last_assigned_at = now() WHERE id = 'op-b'")
        let outcome = onAThread(fixture) { queries throws(QueryError) in
            _ = try queries.heartbeat(node: "node-a", connections: both, settings: Self.settings)
        }
        // The beat holds op-a (it locks in order) and waits for op-b.
        #expect(try readerWaitsForALock(fixture), "the heartbeat waits for the other transaction's row")
        // op-a now closes the cycle. The beat's deadlock_timeout runs out first, so its
        // backend finds the deadlock and is the one rolled back; this update then gets op-a.
        try other.query("UPDATE operators SET last_assigned_at = now() WHERE id = 'op-a'")
        Thread.sleep(forTimeInterval: 0.2)
        try other.execute("COMMIT")
        for _ in 0..<200 where outcome.value == nil { Thread.sleep(forTimeInterval: 0.05) }
        #expect(outcome.value == "ok")
        #expect(
            try rows(fixture, "SELECT count(*)::text FROM operators WHERE last_assigned_at IS NOT NULL") == [["2"]],
            "the other transaction committed too")
    }

    /// Consoles' hellos and the heartbeat both update operators' rows; they
    /// lock them in one order (by workspace, then id), whatever order the
    /// sightings came in, so a console storm during a beat cannot deadlock
    /// with it. In the other order they did: each such deadlock held both
    /// statements for `deadlock_timeout` (a second) before one was rolled
    /// back, 16 times in a day of benchmark runs.
    @Test func sightingsLockOperatorsInTheBeatsOrder() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let workspace = fixture.workspaceID
        let sighting = { (id: String) in
            OperatorSighting(workspaceID: workspace, staff: Participant(id: id, role: "operator", name: "N \(id)"))
        }
        let bThenA = [sighting("op-b"), sighting("op-a")]
        try fixture.queries.recordOperators(bThenA)
        let other = try fixture.database.connect()
        try other.execute("BEGIN")
        try other.query("UPDATE operators SET last_assigned_at = now() WHERE id = 'op-b'")
        let outcome = onAThread(fixture) { queries throws(QueryError) in try queries.recordOperators(bThenA) }
        #expect(try readerWaitsForALock(fixture), "the sightings wait for op-b, held by the other transaction")
        // Waiting for op-b, the sightings already hold op-a: they came to it first.
        #expect(throws: PostgresError.self, "op-a is locked by the waiting sightings") {
            try fixture.admin.query("SELECT 1 FROM operators WHERE id = 'op-a' FOR UPDATE NOWAIT")
        }
        try other.execute("COMMIT")
        for _ in 0..<200 where outcome.value == nil { Thread.sleep(forTimeInterval: 0.05) }
        #expect(outcome.value == "ok")
    }

    /// Beats run back to back while consoles come and go: one that renewed
    /// every operator of the node wrote a row version for each, each time
    /// (3,000 a second in a soak run), and locked each operator and
    /// connection row. A grace renewed less than the slack ago is left as it
    /// is, its row not even locked; an older one, or none (a row made by a
    /// status choice), is renewed; a longer one (another node's) is never
    /// moved back; an unchanged connection count is not touched.
    @Test func aBeatLeavesAGraceRenewedLessThanTheSlackAgo() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let workspace = fixture.workspaceID
        let all = ["op-fresh", "op-stale", "op-none", "op-long"].map { connection(workspace, $0) }
        _ = try fixture.queries.heartbeat(node: "node-a", connections: all, settings: Self.settings)
        try fixture.admin.query(
            """
            UPDATE operators SET connected_until = CASE id
                WHEN 'op-fresh' THEN now() + interval '26 s'
                WHEN 'op-stale' THEN now() + interval '24 s'
                WHEN 'op-none' THEN NULL
                ELSE now() + interval '1 hour' END
            """)
        // A new row version (xmin), or a lock (xmax: ON CONFLICT locks the rows it meets).
        let versions = "SELECT id, xmin::text, xmax::text FROM operators ORDER BY id"
        let connectionVersions = "SELECT operator_id, xmin::text, xmax::text FROM operator_connections ORDER BY 1"
        let before = try rows(fixture, versions)
        let connectionsBefore = try rows(fixture, connectionVersions)
        _ = try fixture.queries.heartbeat(node: "node-a", connections: all, settings: Self.settings)
        let after = try rows(fixture, versions)
        let rewritten = zip(before, after).filter { $0 != $1 }.map { $0.1[0] }
        #expect(rewritten == ["op-none", "op-stale"], "written or locked: these only")
        #expect(
            try rows(fixture, connectionVersions) == connectionsBefore, "unchanged counts: neither written nor locked")
        #expect(
            try rows(
                fixture,
                """
                SELECT id FROM operators
                 WHERE connected_until BETWEEN now() + interval '29 s' AND now() + interval '31 s' ORDER BY id
                """) == [["op-none"], ["op-stale"]])
        #expect(
            try rows(fixture, "SELECT id FROM operators WHERE connected_until > now() + interval '59 minutes'")
                == [["op-long"]])
    }

    @Test func theSlackLeavesAGraceThatNeverLapsesBetweenBeats() {
        #expect(RoutingSettings(offlineGraceSeconds: 30, heartbeatSeconds: 5).renewalSlackSeconds == 5)
        // The heartbeat at half the grace (the most start-up allows): half of what is left beyond a beat.
        #expect(RoutingSettings(offlineGraceSeconds: 10, heartbeatSeconds: 5).renewalSlackSeconds == 2.5)
        #expect(RoutingSettings(offlineGraceSeconds: 3, heartbeatSeconds: 1).renewalSlackSeconds == 1)
        for grace in 2...120 {
            for heartbeat in 1...(grace / 2) {
                let slack = RoutingSettings(offlineGraceSeconds: grace, heartbeatSeconds: heartbeat)
                    .renewalSlackSeconds
                // Renewed at most a slack before a beat, the next beat a heartbeat later: what is left.
                let left = Double(grace) - slack - Double(heartbeat)
                #expect(slack > 0 && left > 0, "grace \(grace), heartbeat \(heartbeat): slack \(slack)")
            }
        }
    }

    /// A node with thousands of operators' consoles: the beat that finds
    /// half of them gone deletes exactly those and gives them their grace,
    /// and its cost grows with the connections, not their square (the
    /// nested loop it once was took seconds here; a hashed set takes
    /// milliseconds, so the bound is loose).
    @Test func aBeatOfThousandsOfConnectionsFindsTheGoneOnesInOnePass() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let workspace = fixture.workspaceID
        // Statistics from a quiet night make the planner expect one connection row,
        // and join the view to it by a nested loop; with hash and merge joins off its
        // choice here is that one whatever the statistics say (the session of
        // `fixture.queries` starts after this).
        try forceNestedLoops(fixture)
        let all = (0..<6_000).map { connection(workspace, "op-\($0)") }
        _ = try fixture.queries.heartbeat(node: "node-a", connections: all, settings: Self.settings)
        try fixture.admin.query("UPDATE operators SET connected_until = now() + interval '3 s'")
        let kept = Array(all.prefix(3_000))
        let clock = "SELECT clock_timestamp()::text"
        let before = try #require(try rows(fixture, clock).first?.first ?? nil)
        let took = try ContinuousClock().measure {
            _ = try fixture.queries.heartbeat(node: "node-a", connections: kept, settings: Self.settings)
        }
        let after = try #require(try rows(fixture, clock).first?.first ?? nil)
        #expect(
            try rows(fixture, "SELECT count(*)::text, min(connections)::text FROM operator_connections")
                == [["3000", "1"]])
        // Within a second of 30 s after the beat, however long the beat took.
        let graced = """
            SELECT count(*)::text FROM operators
             WHERE connected_until BETWEEN '\(before)'::timestamptz + interval '29 s'
                                       AND '\(after)'::timestamptz + interval '31 s'
            """
        #expect(try rows(fixture, graced) == [["6000"]], "the kept ones by their beat, the gone ones by their leaving")
        #expect(took < .seconds(2), "a beat of 6,000 connections took \(took)")
    }

    /// A long queue in a workspace where nobody is online (a night, or a
    /// team all away): the beat asks once per workspace whether someone
    /// could take from its queue, not once per queued session. Asked per
    /// session, it read every operator of the workspace for each of them
    /// (500 x 1,000 rows, up to 111 ms a beat, in bench-latency's 500 x 2
    /// shape); here that would be 25 million rows, seconds, so the bound is
    /// loose.
    @Test func aBeatLooksAtAQueuedWorkspacesOperatorsOnce() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let workspace = fixture.workspaceID
        // Nested loops, as statistics gathered before the queue grew choose them.
        try forceNestedLoops(fixture)
        try fixture.admin.query(
            "INSERT INTO workspaces (id, name) VALUES ('\(workspace)'::uuid, 'night shift') ON CONFLICT DO NOTHING")
        try fixture.admin.query(
            """
            INSERT INTO chat_sessions (workspace_id, status, waiting_since)
            SELECT '\(workspace)'::uuid, 'open', now() FROM generate_series(1, 5000)
            """)
        try fixture.admin.query(
            """
            INSERT INTO operators (workspace_id, id, role, status, connected_until)
            SELECT '\(workspace)'::uuid, 'op-' || g, 'operator', 'online', now() - interval '1 minute'
              FROM generate_series(1, 5000) AS g
            """)
        var workspaces: [String] = []
        let took = try ContinuousClock().measure {
            workspaces = try fixture.queries.heartbeat(node: "node-a", connections: [], settings: Self.settings)
        }
        #expect(workspaces.isEmpty, "a queue of 5,000, but everyone's grace is over")
        #expect(took < .milliseconds(500), "a beat over 5,000 queued sessions and 5,000 operators took \(took)")
        try fixture.admin.query(
            "UPDATE operators SET connected_until = now() + interval '1 minute' WHERE id = 'op-5000'")
        #expect(
            try fixture.queries.heartbeat(node: "node-a", connections: [], settings: Self.settings) == [workspace],
            "one operator is enough")
    }

    @Test func aHeartbeatFindsTheWorkspacesWithWork() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let workspace = fixture.workspaceID
        let session = try fixture.queries.createSession(workspaceID: workspace, visitorID: "v-1", title: nil)
        try fixture.append(session: session.id, body: "hello")
        let beat = { () throws -> [String] in
            try fixture.queries.heartbeat(
                node: "node-a", connections: [self.connection(workspace, "op-ken")], settings: Self.settings)
        }
        #expect(try beat().isEmpty, "a queue, but nobody online")
        #expect(try fixture.queries.setOperatorStatus(workspaceID: workspace, operatorID: "op-ken", status: .online))
        #expect(try beat() == [workspace], "a queue and someone to take from it")
        var manual = Self.settings
        manual.mode = .manual
        #expect(
            try fixture.queries.heartbeat(node: "node-a", connections: [], settings: manual).isEmpty,
            "manual mode routes nothing")
    }

    @Test func statusCapacityAndPresenceReadBack() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let workspace = fixture.workspaceID
        _ = try fixture.queries.heartbeat(
            node: "node-a", connections: [connection(workspace, "op-ken")], settings: Self.settings)
        #expect(try fixture.queries.setOperatorStatus(workspaceID: workspace, operatorID: "op-ken", status: .away))
        #expect(try fixture.queries.setOperatorCapacity(workspaceID: workspace, operatorID: "op-ken", capacity: 9))
        #expect(
            try !fixture.queries.setOperatorStatus(workspaceID: workspace, operatorID: "op-nobody", status: .online))
        let presence = try fixture.queries.operatorPresence(
            workspaceID: workspace, operatorID: nil, defaultCapacity: 5, liveSeconds: 11)
        let seen = try #require(presence.first?.lastSeenAt, "its latest connection")
        #expect(
            presence == [
                OperatorPresence(
                    id: "op-ken", name: "N op-ken", role: "operator", status: .away, connected: true, activeSessions: 0,
                    capacity: 9, lastAssignedAt: nil, capacityIsDefault: false, lastSeenAt: seen)
            ])
        try fixture.admin.query("UPDATE gateway_nodes SET heartbeat_at = now() - interval '12 s'")
        #expect(
            try fixture.queries.operatorPresence(
                workspaceID: workspace, operatorID: "op-ken", defaultCapacity: 5, liveSeconds: 11
            ).first?.connected == false, "its node stopped answering")
        #expect(try fixture.queries.setOperatorCapacity(workspaceID: workspace, operatorID: "op-ken", capacity: nil))
        let defaulted = try fixture.queries.operatorPresence(
            workspaceID: workspace, operatorID: "op-ken", defaultCapacity: 5, liveSeconds: 11
        ).first
        #expect(defaulted?.capacity == 5 && defaulted?.capacityIsDefault == true, "no capacity of its own: the default")
    }
}

/// What a thread's call ended with.
final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var text: String?

    var value: String? { lock.withLock { text } }

    func set(_ value: String) { lock.withLock { text = value } }
}
