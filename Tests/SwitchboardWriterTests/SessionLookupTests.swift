import SwitchboardPostgres
import SwitchboardTestSupport
import Testing

@testable import SwitchboardWriter

/// A batch must cost the same whether the database holds ten sessions or a
/// million: it may touch its own sessions, never scan the others. Two traps,
/// both under the writer's generic plans: a table without statistics (a fresh
/// deployment, or sessions created since the last ANALYZE), where version 5 of
/// switchboard_append_messages read every live session through the partial
/// index; and a small analyzed table, where the last_seq update hash-joined a
/// sequential scan of every session (about 0.2 ms a batch at 1,000 sessions).
@Suite struct SessionLookupTests {
    @Test(arguments: [false, true])
    func aBatchReadsOnlyItsOwnSessions(analyzed: Bool) throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        try db.query("ALTER TABLE chat_sessions SET (autovacuum_enabled = false)")
        // 1,000 analyzed sessions: few enough that a scan looks cheaper than ten
        // index probes (the generic plan's guess at a batch's sessions).
        let sessionCount = analyzed ? 1000 : 3000
        try Self.createSessions(sessionCount, in: db)
        // The condition under test: what the planner knows of the table.
        if analyzed { try db.query("ANALYZE chat_sessions") }
        let estimate = try db.query("SELECT reltuples FROM pg_class WHERE relname = 'chat_sessions'").string(0, 0)
        #expect(estimate == (analyzed ? String(sessionCount) : "-1"))

        let sessions = try db.query("SELECT id::text FROM chat_sessions ORDER BY created_at, id LIMIT 5").rows
            .compactMap { $0.first ?? nil }
        #expect(sessions.count == 5)
        try db.execute(WriterLoop.sessionSettings)

        // Two batches, the second on the generic plans the first one cached.
        for round in 1...2 {
            // Counts not yet flushed to the statistics collector, this
            // transaction's included: the batch's own reads are the difference.
            let counters =
                "SELECT seq_scan, idx_tup_fetch FROM pg_stat_xact_user_tables WHERE relname = 'chat_sessions'"
            try db.query("BEGIN")
            let before = try db.query(counters)
            let stored = try Self.appendTwoEach(to: sessions, round: round, db)
            let after = try db.query(counters)
            try db.query("COMMIT")
            let scans = (after.int(0, 0) ?? -1) - (before.int(0, 0) ?? 0)
            let fetched = (after.int(0, 1) ?? -1) - (before.int(0, 1) ?? 0)

            #expect(stored == Array(repeating: "stored", count: 10))
            #expect(scans == 0, "sequential scans of chat_sessions in round \(round)")
            // Per session: the lock, the last_seq update and one foreign-key check
            // per message, about 20 rows in all; a scan would read every session.
            #expect(fetched >= 5 && fetched <= 50, "chat_sessions rows fetched by index in round \(round): \(fetched)")
        }
        #expect(try db.query("SELECT max(last_seq) FROM chat_sessions").int(0, 0) == 4)
    }

    /// The fast path locks its sessions inside the subtransaction that updates
    /// them. Locked by the parent and updated in the subtransaction, each row
    /// got a multixact as its xmax: one more multixact per session and batch to
    /// store, look up on every later lock of the row, and freeze.
    @Test func batchesLeaveNoMultixactOnTheirSessions() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        try db.query("CREATE EXTENSION IF NOT EXISTS pageinspect")
        try Self.createSessions(3, in: db)
        let sessions = try db.query("SELECT id::text FROM chat_sessions ORDER BY id").rows.compactMap {
            $0.first ?? nil
        }
        try db.execute(WriterLoop.sessionSettings)

        for round in 1...3 {
            #expect(try Self.appendTwoEach(to: sessions, round: round, db) == Array(repeating: "stored", count: 6))
        }
        // HEAP_XMAX_IS_MULTI (0x1000) on any version of any session row.
        let versions = try db.query(
            """
            SELECT count(*) FILTER (WHERE (t_infomask & 4096) <> 0), count(*)
              FROM heap_page_items(get_raw_page('chat_sessions', 0))
            """)
        #expect(versions.int(0, 1) ?? 0 >= 3)
        #expect(versions.int(0, 0) == 0, "session row versions with a multixact xmax")
        #expect(try db.query("SELECT sum(last_seq) FROM chat_sessions").int(0, 0) == 18)
    }

    /// `count` sessions in one new workspace.
    private static func createSessions(_ count: Int, in db: PostgresConnection) throws {
        let workspace = "7f3c2a10-0000-4000-8000-000000000001"
        try db.query("INSERT INTO workspaces (id, name) VALUES ($1, 'w')", [workspace])
        try db.query(
            "INSERT INTO chat_sessions (workspace_id) SELECT $1 FROM generate_series(1, $2::int)",
            [workspace, String(count)])
    }

    /// Two messages for each session, as one batch through the writer's own
    /// statement; returns each message's status.
    private static func appendTwoEach(
        to sessions: [String], round: Int, _ db: PostgresConnection
    ) throws
        -> [String?]
    {
        let ids = sessions + sessions
        let literal = { (values: [String]) in "{" + values.map { "\"\($0)\"" }.joined(separator: ",") + "}" }
        let stored = try db.query(
            BatchEncoder.statement,
            [
                literal(ids), literal(ids.indices.map { "r\(round)-\($0)" }), literal(ids.map { _ in "visitor" }),
                literal(ids.map { _ in "v-1" }), literal(ids.map { _ in "Vera" }), literal(ids.map { _ in "text" }),
                literal(ids.map { _ in "hello" }), nil,
            ])
        return stored.rows.map { $0[1] }
    }
}
