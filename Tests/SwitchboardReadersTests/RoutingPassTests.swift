import Foundation
import SwitchboardChat
import SwitchboardPostgres
import SwitchboardReaders
import SwitchboardRouting
import Testing

/// The routing pass against real PostgreSQL: what it assigns and stores,
/// what it requeues, that passes running at once on several connections
/// never give an operator more than its capacity nor a session twice, and
/// how many decisions one workspace takes per second.
@Suite struct RoutingPassTests {
    static let settings = RoutingSettings(mode: .leastBusy, maxSessionsPerOperator: 5, offlineGraceSeconds: 30)

    /// `count` operators of the workspace, online and connected for a minute, capacity `capacity` (nil: the default).
    private func operators(
        _ fixture: ReadersFixture, _ count: Int, capacity: Int? = nil, prefix: String = "op"
    ) throws {
        try fixture.admin.query(
            "INSERT INTO workspaces (id, name) VALUES ($1::uuid, 'w') ON CONFLICT DO NOTHING", [fixture.workspaceID])
        try fixture.admin.query(
            """
            INSERT INTO operators (workspace_id, id, name, role, status, status_changed_at, capacity, connected_until)
            SELECT $1::uuid, $2 || lpad(n::text, 3, '0'), 'Operator ' || n, 'operator', 'online', now(), $4::int,
                   now() + interval '1 minute'
              FROM generate_series(0, $3::int - 1) n
            """, [fixture.workspaceID, prefix, String(count), capacity.map(String.init)])
    }

    /// `count` sessions whose visitors wrote, one after the other (through the writer's function).
    @discardableResult
    private func waiting(_ fixture: ReadersFixture, _ count: Int) throws -> [String] {
        var ids: [String] = []
        for index in 0..<count {
            let session = try fixture.queries.createSession(
                workspaceID: fixture.workspaceID, visitorID: "v-\(index)", title: nil)
            try fixture.append(session: session.id, senderID: "v-\(index)", body: "hello")
            ids.append(session.id)
        }
        return ids
    }

    /// Open assigned sessions per operator.
    private func loads(_ fixture: ReadersFixture) throws -> [String: Int] {
        let result = try fixture.admin.query(
            """
            SELECT assigned_operator_id, count(*)::int FROM chat_sessions
             WHERE workspace_id = $1::uuid AND status = 'assigned' GROUP BY 1
            """, [fixture.workspaceID])
        return Dictionary(uniqueKeysWithValues: result.rows.map { ($0[0] ?? "", Int($0[1] ?? "") ?? 0) })
    }

    @Test func aPassGivesTheOldestToTheLeastBusyAndStoresEachEventInItsSession() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        try operators(fixture, 2, capacity: 2)
        let sessions = try waiting(fixture, 5)

        let result = try fixture.queries.routingPass(workspaceID: fixture.workspaceID, settings: Self.settings)
        #expect(result.assigned.map(\.session.id) == Array(sessions.prefix(4)), "the four oldest, in order")
        #expect(result.assigned.map { $0.session.assignedOperator?.id } == ["op000", "op001", "op000", "op001"])
        #expect(result.assigned.allSatisfy { $0.session.status == .assigned && !$0.session.queued })
        let event = try #require(result.assigned.first?.event)
        #expect(event.kind == "event" && event.seq == 2 && event.body == "Operator 0 joined the conversation")
        #expect(event.sender == Participant(id: "op000", role: "operator", name: "Operator 0"))
        #expect(
            event.meta?.contains(#""action": "assigned""#) == true
                && event.meta?.contains(#""mode": "least_busy""#) == true)
        #expect(result.assigned.first?.session.lastSeq == 2 && result.assigned.first?.session.version == 3)
        #expect(result.firstWaits.count == 4 && result.firstWaits.allSatisfy { $0 >= 0 && $0 < 60 })
        #expect(result.snapshot.queue == [sessions[4]] && result.snapshot.queueLength == 1)
        #expect(result.snapshot.availableOperators == 0)
        #expect(
            try fixture.queries.messages(sessionID: sessions[0], afterSeq: 1, limit: 10, withNotes: true) == [event])

        let again = try fixture.queries.routingPass(workspaceID: fixture.workspaceID, settings: Self.settings)
        #expect(again.assigned.isEmpty && again.snapshot.queueLength == 1, "nobody has room: nothing moves")
        #expect(try loads(fixture) == ["op000": 2, "op001": 2])
    }

    @Test func manualModeAssignsNothingAndRoundRobinRotates() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        try operators(fixture, 3)
        try waiting(fixture, 4)
        var manual = Self.settings
        manual.mode = .manual
        #expect(try fixture.queries.routingPass(workspaceID: fixture.workspaceID, settings: manual).assigned.isEmpty)
        var roundRobin = Self.settings
        roundRobin.mode = .roundRobin
        let result = try fixture.queries.routingPass(workspaceID: fixture.workspaceID, settings: roundRobin)
        #expect(result.assigned.map { $0.session.assignedOperator?.id } == ["op000", "op001", "op002", "op000"])
    }

    @Test func anOperatorGonePastItsGraceGivesItsSessionsBackAtTheHeadInTheirOrder() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        try operators(fixture, 1, capacity: 2, prefix: "gone")
        let sessions = try waiting(fixture, 3)
        _ = try fixture.queries.routingPass(workspaceID: fixture.workspaceID, settings: Self.settings)
        let before = try fixture.admin.query(
            "SELECT id::text, waiting_since::text FROM chat_sessions WHERE workspace_id = $1::uuid ORDER BY waiting_since",
            [fixture.workspaceID]
        ).rows
        // Its node stopped answering a while ago; a colleague is there now.
        try fixture.admin.query("UPDATE operators SET connected_until = now() - interval '1 second'")
        try operators(fixture, 1, capacity: 1, prefix: "here")

        let result = try fixture.queries.routingPass(workspaceID: fixture.workspaceID, settings: Self.settings)
        #expect(result.requeued.map(\.session.id) == Array(sessions.prefix(2)))
        #expect(result.requeued.allSatisfy { $0.session.queued && $0.event?.body.contains("went offline") == true })
        #expect(result.requeued.first?.event?.meta?.contains(#""action": "requeued""#) == true)
        #expect(result.assigned.map(\.session.id) == [sessions[0]], "the head of the queue goes to whoever has room")
        #expect(result.assigned.first?.session.assignedOperator?.id == "here000")
        #expect(result.firstWaits.isEmpty, "a second assignment is no first wait")
        #expect(result.snapshot.queue == [sessions[1], sessions[2]], "the requeued one before the one that never left")
        let after = try fixture.admin.query(
            "SELECT id::text, waiting_since::text FROM chat_sessions WHERE workspace_id = $1::uuid ORDER BY waiting_since",
            [fixture.workspaceID]
        ).rows
        #expect(after == before, "waits kept")

        // With requeueing off, a gone operator keeps what it holds.
        let other = try ReadersFixture()
        defer { other.drop() }
        try operators(other, 1)
        try waiting(other, 1)
        _ = try other.queries.routingPass(workspaceID: other.workspaceID, settings: Self.settings)
        try other.admin.query("UPDATE operators SET connected_until = now() - interval '1 second'")
        var keep = Self.settings
        keep.requeueOnOffline = false
        #expect(try other.queries.routingPass(workspaceID: other.workspaceID, settings: keep).requeued.isEmpty)
    }

    @Test func aHandAssignmentWaitsForTheWorkspacesPass() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let session = try waiting(fixture, 1)[0]
        let url = fixture.database.url
        let lock = try fixture.database.connect()
        try lock.execute("BEGIN")
        try lock.query(
            "SELECT pg_advisory_xact_lock(1396855380, hashtext($1::uuid::text))", [fixture.workspaceID])
        let done = Flag()
        let thread = Thread {
            let holder = ChatQueries(databaseURL: url)
            _ = try? holder.assign(sessionID: session, operatorID: "op-hand", operatorName: nil)
            done.set()
        }
        thread.start()
        Thread.sleep(forTimeInterval: 0.3)
        #expect(!done.isSet, "held by the pass's lock")
        try lock.execute("COMMIT")
        for _ in 0..<100 where !done.isSet { Thread.sleep(forTimeInterval: 0.05) }
        #expect(done.isSet)
    }

    /// Three connections run passes of one workspace at once while visitors
    /// keep writing: the lock makes them take turns, so the invariants hold.
    @Test func passesOnSeveralConnectionsAtOnceNeverOverfillNorAssignTwice() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        try operators(fixture, 10, capacity: 5)
        try waiting(fixture, 30)
        let (url, workspace) = (fixture.database.url, fixture.workspaceID)
        let group = DispatchGroup()
        let failures = Counter()
        for index in 0..<3 {
            group.enter()
            Thread {
                defer { group.leave() }
                // Each thread its own connection, as each reader thread (and each node) has.
                let queries = ChatQueries(databaseURL: url)
                let connection = try? PostgresConnection(url)
                for round in 0..<15 {
                    do {
                        _ = try queries.routingPass(workspaceID: workspace, settings: Self.settings)
                        // Meanwhile one of them lets ten more visitors write.
                        guard index == 0 else { continue }
                        for visitor in 0..<10 {
                            let id = try queries.createSession(
                                workspaceID: workspace, visitorID: "late-\(round)-\(visitor)", title: nil
                            ).id
                            guard let connection else { throw QueryError.unavailable("no connection") }
                            try appendVisitorMessage(connection, session: id, visitor: "late-\(round)-\(visitor)")
                        }
                    } catch {
                        failures.add()
                    }
                }
            }.start()
        }
        group.wait()
        _ = try fixture.queries.routingPass(workspaceID: fixture.workspaceID, settings: Self.settings)
        #expect(failures.value == 0)
        #expect(try loads(fixture).values.sorted() == Array(repeating: 5, count: 10), "every operator full, none past")
        let events = try fixture.admin.query(
            """
            SELECT count(*) FILTER (WHERE n > 1), count(*) FROM (
                SELECT session_id, count(*) AS n FROM chats
                 WHERE kind = 'event' AND meta ->> 'action' = 'assigned' GROUP BY 1) e
            """)
        #expect(events.rows == [["0", "50"]], "fifty sessions assigned, each once")
        let queued = try fixture.admin.query(
            "SELECT count(*) FROM chat_sessions WHERE status = 'open' AND waiting_since IS NOT NULL"
        ).int(0, 0)
        #expect(queued == 30 + 15 * 10 - 50)
        // First come, first served: nobody still waiting arrived before someone assigned.
        let order = try fixture.admin.query(
            """
            SELECT max(waiting_since) FILTER (WHERE status = 'assigned') <= min(waiting_since) FILTER (WHERE status = 'open')
              FROM chat_sessions
            """)
        #expect(order.bool(0, 0) == true)
    }

    /// Decisions per second for one workspace: one pass over a long queue
    /// (the batch path), and one pass per session (the path of a new
    /// conversation with an operator free). Printed for docs/routing.md.
    @Test func decisionsPerSecondForOneWorkspace() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        try operators(fixture, 50, capacity: 100)
        try fixture.admin.query(
            """
            INSERT INTO chat_sessions (workspace_id, user_id, status, waiting_since)
            SELECT $1::uuid, 'v-' || n, 'open', now() - (5000 - n) * interval '1 millisecond'
              FROM generate_series(1, 2000) n
            """, [fixture.workspaceID])
        try fixture.admin.query("ANALYZE chat_sessions")
        let batch = ContinuousClock().measure {
            let result = try? fixture.queries.routingPass(workspaceID: fixture.workspaceID, settings: Self.settings)
            #expect(result?.assigned.count == 2000)
        }
        try fixture.admin.query(
            """
            INSERT INTO chat_sessions (workspace_id, user_id, status, waiting_since)
            SELECT $1::uuid, 'w-' || n, 'open', now() FROM generate_series(1, 500) n
            """, [fixture.workspaceID])
        // Everyone full; then one place at a time: each pass gives exactly one session.
        try fixture.admin.query(
            """
            UPDATE operators o SET capacity = (SELECT count(*) FROM chat_sessions s
                                                WHERE s.assigned_operator_id = o.id AND s.status = 'assigned')
            """)
        var single = 0
        var oneByOne = Duration.zero
        for _ in 0..<500 {
            try fixture.admin.query("UPDATE operators SET capacity = capacity + 1 WHERE id = 'op000'")
            let started = ContinuousClock.now
            single += try fixture.queries.routingPass(workspaceID: fixture.workspaceID, settings: Self.settings)
                .assigned.count
            oneByOne += ContinuousClock.now - started
        }
        #expect(single == 500)
        let seconds = { (duration: Duration) in
            Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        }
        print(
            "routing decisions/s, one workspace: one pass over 2000 queued, 50 operators: "
                + "\(Int(2000 / seconds(batch))) (\(Int(seconds(batch) * 1000)) ms); "
                + "one pass per session, 500 passes: \(Int(500 / seconds(oneByOne)))/s")
    }
}

/// A visitor's message through the writer's function, on `connection`.
func appendVisitorMessage(_ connection: PostgresConnection, session: String, visitor: String) throws {
    _ = try connection.query(
        """
        SELECT status FROM switchboard_append_messages(
            ARRAY[$1::uuid], ARRAY[gen_random_uuid()::text], ARRAY['visitor'], ARRAY[$2::text],
            ARRAY[NULL::text], ARRAY['text'], ARRAY['hello'])
        """, [session, visitor])
}

/// A count shared by threads.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// A flag set by one thread and read by another.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var set_ = false
    func set() { lock.withLock { set_ = true } }
    var isSet: Bool { lock.withLock { set_ } }
}
