import Foundation
import SwitchboardPostgres
import SwitchboardTestSupport
import Testing

@testable import SwitchboardWriter

/// What the append function's fast path promises whatever its statements
/// (issue 36 asks for these beside any new SQL path): the batch's sessions
/// locked in id order, so that two writers (two nodes) cannot deadlock, and a
/// session the fast path cannot write sending the whole batch to the general
/// path with nothing of the fast path left behind.
@Suite struct FastPathTests {
    /// Sessions a < b < c, submitted c, a, b in one batch while another
    /// transaction holds b: the batch holds a and waits for b, and has not
    /// touched c. In submission order it would hold c.
    @Test func aBatchLocksItsSessionsInIdOrderWhateverTheirOrderInIt() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let sessions = try makeSessions(db, count: 3).sorted()
        let (a, b, c) = (sessions[0], sessions[1], sessions[2])
        let collector = ResultCollector()
        let writer = try startedWriter(
            WriterConfiguration(
                databaseURL: db.url, maxBatchMessages: 3, maxBatchDelayMilliseconds: 60_000, connections: 1),
            collector)
        defer { writer.stop() }

        let blocker = try db.connect()
        try blocker.execute("BEGIN")
        try blocker.query("SELECT 1 FROM chat_sessions WHERE id = $1 FOR UPDATE", [b])
        for (token, session) in [c, a, b].enumerated() {
            #expect(writer.submit(command(session: session, clientID: "m-\(token)", token: UInt64(token))) == .accepted)
        }
        let probe = try db.connect()
        let waiting = waitUntil(timeout: 10) {
            let waits = try? probe.query(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'switchboard-writer' "
                    + "AND wait_event_type = 'Lock'")
            return waits?.int(0, 0) == 1
        }
        #expect(waiting, "the batch waits for b's lock")
        #expect(try Self.isLocked(a, probe), "a, first in id order, is locked before b")
        #expect(try !Self.isLocked(c, probe), "c, after b in id order, is not locked yet")

        try blocker.execute("COMMIT")
        let results = try collector.wait(for: 3)
        #expect(results.allSatisfy { $0.outcome.isStored })
        #expect(collector.batchSizes == [3])
        #expect(try checkGapFree(db) == [a: 1, b: 1, c: 1])
    }

    /// A soft-deleted session in the batch: the general path answers
    /// `no_session` for it and stores the other's messages once, each session
    /// bumped once or not at all, with one search backlog row.
    @Test func aDeletedSessionSendsTheBatchToTheGeneralPathWithNothingLeftOfTheFirst() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let sessions = try makeSessions(database, count: 2)
        let db = try database.connect()
        try db.query("UPDATE chat_sessions SET deleted_at = now() WHERE id = $1", [sessions[1]])
        try db.execute(WriterLoop.sessionSettings)

        let rows = try Self.append([sessions[0], sessions[1], sessions[0]], db)
        #expect(rows.map(\.status) == ["stored", "no_session", "stored"])
        #expect(rows.map(\.seq) == ["1", nil, "2"])
        let state = try db.query(
            "SELECT id::text, last_seq, version FROM chat_sessions WHERE id = ANY ($1::uuid[]) ORDER BY id = $2",
            ["{\(sessions.joined(separator: ","))}", sessions[1]])
        #expect(
            state.rows.map { [$0[1], $0[2]] } == [["2", "2"], ["0", "1"]], "each session bumped once, or not at all")
        #expect(try db.query("SELECT count(*) FROM chats").int(0, 0) == 2)
        #expect(try db.query("SELECT count(*) FROM search_backlog").int(0, 0) == 1)
    }

    /// A closed session's visitor message reopens it; the reopening event
    /// takes the seq before the message and comes after the messages' rows.
    @Test func aClosedSessionIsReopenedOnTheGeneralPath() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let sessions = try makeSessions(database, count: 2)
        let db = try database.connect()
        try db.query("UPDATE chat_sessions SET status = 'closed', closed_at = now() WHERE id = $1", [sessions[1]])
        try db.execute(WriterLoop.sessionSettings)

        let rows = try Self.append([sessions[0], sessions[1]], db)
        #expect(rows.map(\.status) == ["stored", "stored", "event"])
        #expect(rows.map(\.seq) == ["1", "2", "1"])
        let status = try db.query("SELECT status FROM chat_sessions WHERE id = $1", [sessions[1]])
        #expect(status.string(0, 0) == "open")
        #expect(try db.query("SELECT count(*) FROM search_backlog").int(0, 0) == 1)
    }

    /// Whether another transaction holds `session`'s row (a NOWAIT lock fails).
    private static func isLocked(_ session: String, _ db: PostgresConnection) throws -> Bool {
        try db.execute("BEGIN")
        defer { try? db.execute("ROLLBACK") }
        do {
            try db.query("SELECT 1 FROM chat_sessions WHERE id = $1 FOR UPDATE NOWAIT", [session])
            return false
        } catch {
            guard error.sqlState == "55P03" else { throw error }
            return true
        }
    }

    /// One visitor message per entry of `sessions`, as one batch through the
    /// writer's own statement: each row's status and seq.
    private static func append(
        _ sessions: [String], _ db: PostgresConnection
    ) throws -> [(status: String?, seq: String?)] {
        let literal = { (values: [String]) in "{" + values.map { "\"\($0)\"" }.joined(separator: ",") + "}" }
        let result = try db.query(
            BatchEncoder.statement,
            [
                literal(sessions), literal(sessions.indices.map { "m-\($0)" }),
                literal(sessions.map { _ in "visitor" }),
                literal(sessions.map { _ in "v-1" }), literal(sessions.map { _ in "Vera" }),
                literal(sessions.map { _ in "text" }), literal(sessions.map { _ in "hello" }), nil,
            ])
        return result.rows.map { (status: $0[1], seq: $0[3]) }
    }
}
