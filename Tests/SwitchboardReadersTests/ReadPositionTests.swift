import Foundation
import SwitchboardPostgres
import Testing

@testable import SwitchboardReaders

/// `recordReads`: many readers' positions in one statement, each as one
/// `read` stored alone would be.
@Suite struct ReadPositionTests {
    @Test func aPositionIsMonotonicAndClamped() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let session = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        for index in 1...5 { try fixture.append(session: session.id, body: "m\(index)") }
        let read = { (reader: String, seq: Int64) throws(QueryError) -> Int64? in
            try fixture.queries.recordReads([position(session.id, reader, seq)]).first ?? nil
        }

        #expect(try read("op-7", 3) == 3)
        #expect(try read("op-7", 2) == 3)  // never backwards
        #expect(try read("op-7", 4) == 4)
        #expect(try read("op-7", 99) == 5)  // clamped to last_seq
        #expect(try read("op-8", -4) == 0)
        #expect(try read("op-8", 1) == 1)  // readers are independent
        #expect(try Self.stored(fixture, session.id) == [["op-7", "5"], ["op-8", "1"]])
    }

    @Test func aPositionIsNilForAMissingOrDeletedSession() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let session = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        try fixture.softDelete(session: session.id)
        let answers = try fixture.queries.recordReads([
            position(UUID().uuidString, "v-1", 1), position(session.id, "v-1", 1),
        ])
        #expect(answers == [nil, nil])
    }

    /// Sessions and readers mixed in one statement, a deleted and a missing
    /// session among them, a reader asking twice: each answer in the place of
    /// its request, the higher of the two stored, and only live sessions'
    /// rows written.
    @Test func manyPositionsAreStoredInOneStatementAndAnsweredInOrder() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let first = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        let second = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-2", title: nil)
        let gone = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-3", title: nil)
        for index in 1...4 { try fixture.append(session: first.id, body: "a\(index)") }
        for index in 1...2 { try fixture.append(session: second.id, body: "b\(index)") }
        try fixture.softDelete(session: gone.id)
        _ = try fixture.queries.recordReads([position(first.id, "op-7", 3)])

        let answers = try fixture.queries.recordReads([
            position(second.id, "op-7", 9), position(first.id, "op-7", 1), position(gone.id, "op-7", 1),
            position(first.id, "v-1", 2), position(UUID().uuidString, "v-1", 1), position(first.id, "v-1", 4),
            position(second.id, "v-2", 1),
        ])
        #expect(answers == [2, 3, nil, 4, nil, 4, 1])
        #expect(try Self.stored(fixture, first.id) == [["op-7", "3"], ["v-1", "4"]])
        #expect(try Self.stored(fixture, second.id) == [["op-7", "2"], ["v-2", "1"]])
        #expect(try Self.stored(fixture, gone.id) == [])
        #expect(try fixture.queries.recordReads([]) == [])
    }

    /// Readers a < b < c of one session, asked c, b, a while another
    /// transaction holds b's row: the statement holds a and waits for b, and
    /// has not touched c. Every batch locks in key order, so two of them
    /// (two event loops, two nodes) sharing positions cannot deadlock.
    @Test func aStatementLocksItsPositionsInKeyOrderWhateverTheirOrderInIt() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let session = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        for index in 1...3 { try fixture.append(session: session.id, body: "m\(index)") }
        _ = try fixture.queries.recordReads(["a", "b", "c"].map { position(session.id, $0, 1) })

        let blocker = try fixture.database.connect()
        try blocker.execute("BEGIN")
        try blocker.query(
            "SELECT 1 FROM chat_read_positions WHERE session_id = $1::uuid AND reader_id = 'b' FOR UPDATE",
            [session.id])
        let answers = Answers()
        let url = fixture.database.url
        let thread = Thread {
            answers.set(
                Result { () throws(QueryError) in
                    try ChatQueries(databaseURL: url).recordReads(["c", "b", "a"].map { position(session.id, $0, 3) })
                })
        }
        thread.start()

        let probe = try fixture.database.connect()
        var waiting = false
        for _ in 0..<200 where !waiting {
            let waits = try probe.query(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
            waiting = waits.int(0, 0) == 1
            if !waiting { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(waiting, "the statement waits for b's row")
        #expect(try Self.isLocked(session.id, "a", probe), "a, first in key order, is locked before b")
        #expect(try !Self.isLocked(session.id, "c", probe), "c, after b in key order, is not locked yet")

        try blocker.execute("COMMIT")
        let result = answers.wait()
        #expect(try result?.get() == [3, 3, 3])
    }

    private static func stored(_ fixture: ReadersFixture, _ session: String) throws -> [[String?]] {
        try fixture.admin.query(
            "SELECT reader_id, seq FROM chat_read_positions WHERE session_id = $1::uuid ORDER BY reader_id",
            [session]
        ).rows
    }

    /// Whether another transaction holds `reader`'s position (a NOWAIT lock fails).
    private static func isLocked(_ session: String, _ reader: String, _ db: PostgresConnection) throws -> Bool {
        try db.execute("BEGIN")
        defer { try? db.execute("ROLLBACK") }
        do {
            try db.query(
                "SELECT 1 FROM chat_read_positions WHERE session_id = $1::uuid AND reader_id = $2 FOR UPDATE NOWAIT",
                [session, reader])
            return false
        } catch {
            guard error.sqlState == "55P03" else { throw error }
            return true
        }
    }
}

private func position(_ session: String, _ reader: String, _ seq: Int64) -> ReadPosition {
    ReadPosition(sessionID: session, readerID: reader, readerRole: "operator", seq: seq)
}

/// A statement's answer from another thread, waited for at most 10 s.
private final class Answers: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Result<[Int64?], QueryError>?

    func set(_ result: Result<[Int64?], QueryError>) {
        condition.lock()
        self.result = result
        condition.signal()
        condition.unlock()
    }

    func wait() -> Result<[Int64?], QueryError>? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(10)
        while result == nil && condition.wait(until: deadline) {}
        return result
    }
}

/// `recordReads`' plan, as PostgreSQL may keep it for the connection.
@Suite struct ReadPositionPlanTests {
    /// On its generic plan (made for the ten rows it guesses an array holds),
    /// with 500 sessions and positions analyzed, where a join would hash
    /// every session: each position's session and stored row are found by key.
    @Test func everyLookupIsByPrimaryKeyOnTheGenericPlan() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        _ = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        try fixture.admin.execute(
            """
            INSERT INTO chat_sessions (workspace_id, last_seq)
            SELECT $$\(fixture.workspaceID)$$, 10 FROM generate_series(1, 500);
            INSERT INTO chat_read_positions (session_id, reader_id, reader_role, seq)
            SELECT id, 'op-7', 'operator', 1 FROM chat_sessions;
            ANALYZE chat_sessions;
            ANALYZE chat_read_positions;
            SET plan_cache_mode = force_generic_plan
            """)
        try fixture.admin.execute(
            "PREPARE positions (uuid[], text[], text[], bigint[]) AS " + ChatQueries.readPositionsStatement)
        let explained = try fixture.admin.query(
            "EXPLAIN EXECUTE positions (ARRAY[gen_random_uuid()], ARRAY['op-7'], ARRAY['operator'], ARRAY[1::bigint])")
        let lines = explained.rows.compactMap { $0.first ?? nil }
        let plan = lines.joined(separator: "\n")
        #expect(!plan.contains("Seq Scan"), "\(plan)")
        for table in ["chat_sessions", "chat_read_positions"] {
            let scans = lines.filter { $0.contains("Scan") && $0.contains(" on \(table) ") }
            #expect(!scans.isEmpty && scans.allSatisfy { $0.contains("Index Scan using") }, "\(table): \(plan)")
        }
    }
}
