import SwitchboardPostgres
import SwitchboardTestSupport
import Testing

@testable import SwitchboardWriter

/// A batch that leaves webhook work, and the expansion of it into events,
/// must cost the same whatever the database holds: the batch probes its
/// workspaces' endpoints by key, and the expander reads the batch's messages
/// by their id range and their workspaces' endpoints by key, never every
/// message or every endpoint. The trap is a generic plan, made on the
/// connection's first call while the tables were small. A first version of
/// migration 13's `switchboard_webhook_messages` joined each event to a scan
/// of every endpoint (this test: 3,000 endpoint rows a batch), and, in
/// `scripts/bench-writer`, the batch's ids to a scan of every message (0.7 s a
/// batch at 20,000 messages).
@Suite struct WebhookLookupTests {
    @Test func aHookedBatchAndItsExpansionReadOnlyTheirOwnMessagesAndEndpoints() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let owner = try database.connect()
        let (workspace, other) = ("7f3c2a10-0000-4000-8000-000000000002", "7f3c2a10-0000-4000-8000-000000000003")
        try owner.query("INSERT INTO workspaces (id, name) VALUES ($1, 'w'), ($2, 'other')", [workspace, other])
        let sessions = try owner.query(
            "INSERT INTO chat_sessions (workspace_id) SELECT $1::uuid FROM generate_series(1, 6) RETURNING id::text",
            [workspace]
        ).rows.compactMap { $0.first ?? nil }
        // Another workspace's 300 endpoints, and one here.
        try owner.query(
            """
            INSERT INTO webhook_endpoints (workspace_id, url, events, secret)
            SELECT $1::uuid, 'https://x.example/' || g, '{message.created}', 'whsec_x' FROM generate_series(1, 300) g
            """, [other])
        try owner.query(
            """
            INSERT INTO webhook_endpoints (workspace_id, url, events, secret)
            VALUES ($1::uuid, 'https://here.example', '{message.created}', 'whsec_x')
            """, [workspace])

        let writer = try database.connect()
        try writer.execute(WriterLoop.sessionSettings)
        // The gateway's expander: a connection of its own, its plans cached alike. PL/pgSQL plans
        // each statement afresh five times before it keeps a generic plan; a gateway's connection
        // gets there within seconds, so the test asks for the generic plan from the first pass
        // (without it, three passes never reached it, and a sequential scan of chats per backlog
        // row went unseen: stop 60).
        let expander = try database.connect()
        try expander.execute("SET plan_cache_mode = force_generic_plan")
        let counters = """
            SELECT relname, seq_scan, idx_tup_fetch FROM pg_stat_xact_user_tables
             WHERE relname IN ('chats', 'webhook_endpoints') ORDER BY relname
            """
        /// Sequential scans and index fetches of chats and the endpoints in `body`'s transaction.
        func reads(on db: PostgresConnection, _ body: () throws -> Void) throws -> [(String, Int, Int)] {
            try db.query("BEGIN")
            let before = try db.query(counters)
            try body()
            let after = try db.query(counters)
            try db.query("COMMIT")
            return (0..<2).map { row in
                (
                    after.string(row, 0) ?? "", (after.int(row, 1) ?? -1) - (before.int(row, 1) ?? 0),
                    (after.int(row, 2) ?? -1) - (before.int(row, 2) ?? 0)
                )
            }
        }
        // Round 1 caches the generic plans while `chats` holds a handful of rows; then the
        // table grows (another session's 5,000 messages, their events made); round 2 runs on those plans.
        for round in 1...2 {
            if round == 2 {
                try Self.append(5000, to: sessions[5], round: 0, owner)
                try expander.query(
                    "SELECT * FROM switchboard_webhook_expand(100000, 0, 60, 0, '{}', '{}') WHERE delivery_id IS NULL")
            }
            var statuses: [String?] = []
            let batch = try reads(on: writer) {
                statuses = try Self.appendTwoEach(to: Array(sessions.prefix(5)), round: round, writer)
            }
            #expect(statuses == Array(repeating: "stored", count: 10) + ["webhooks"])
            for (table, scans, fetched) in batch {
                #expect(scans == 0, "sequential scans of \(table) by the batch in round \(round)")
                // chats: nothing read back; endpoints: one probe for the workspace.
                #expect(fetched <= 10, "\(table) rows fetched by index by the batch in round \(round): \(fetched)")
            }
            if round == 1 {
                // Statistics of small tables, as a new deployment's (or a bench's vacuum) leaves them:
                // without them the planner guesses ten pages and reads chats by its key anyway.
                try owner.query("ANALYZE chats")
            }
            let expansion = try reads(on: expander) {
                let pass = try expander.query(
                    "SELECT ranges, events FROM switchboard_webhook_expand(100000, 0, 60, 0, '{}', '{}') WHERE delivery_id IS NULL"
                )
                #expect(pass.int(0, 0) == 1 && pass.int(0, 1) == 10, "round \(round): one batch, ten events")
            }
            for (table, scans, fetched) in expansion {
                #expect(scans == 0, "sequential scans of \(table) by the expander in round \(round)")
                // chats: the ten new messages, read by their range; endpoints: the workspace's one.
                #expect(fetched <= 30, "\(table) rows fetched by index by the expander in round \(round): \(fetched)")
            }
        }
        #expect(try owner.query("SELECT count(*) FROM webhook_deliveries").int(0, 0) == 5020)
    }

    /// `count` messages to one session through the writer's function, as one call.
    private static func append(_ count: Int, to session: String, round: Int, _ db: PostgresConnection) throws {
        try db.query(
            """
            SELECT count(*) FROM switchboard_append_messages(
                array_fill($1::uuid, ARRAY[$2::int]), ARRAY(SELECT 'bulk-' || g FROM generate_series(1, $2::int) g),
                array_fill('visitor'::text, ARRAY[$2::int]), array_fill('v-1'::text, ARRAY[$2::int]),
                array_fill(NULL::text, ARRAY[$2::int]), array_fill('text'::text, ARRAY[$2::int]),
                array_fill('hello'::text, ARRAY[$2::int]))
            """, [session, String(count)])
    }

    /// Two messages for each session, as one batch through the writer's own statement; each row's status.
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
