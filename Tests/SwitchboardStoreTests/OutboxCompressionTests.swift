import SwitchboardPostgres
import SwitchboardStore
import SwitchboardTestSupport
import Testing

/// Migration 40: the outbox's wide values (a backlog row's versions, a
/// handoff's ids, a long event's body) are compressed with LZ4, and down
/// leaves what LZ4 wrote readable.
@Suite struct OutboxCompressionTests {
    /// Each column of migration 40 with its compression (`l` LZ4, `p` pglz, empty: the server's default).
    private func methods(_ db: PostgresConnection) throws -> [String] {
        try db.query(
            """
            SELECT a.attrelid::regclass::text || '.' || a.attname || '=' || a.attcompression::text
              FROM pg_attribute a
             WHERE (a.attrelid::regclass::text || '.' || a.attname) = ANY ($1::text[])
             ORDER BY 1
            """,
            ["{webhook_backlog.versions,webhook_handoffs.delivery_ids,webhook_handoffs.event_ids,webhook_events.body}"]
        ).rows.map { $0[0] ?? "" }
    }

    /// One wide value of each column written, and how each was compressed.
    private func writeWideValues(_ db: PostgresConnection) throws -> [String?] {
        let (workspace, endpoint) = (newUUID(), newUUID())
        try db.query(
            """
            INSERT INTO webhook_backlog (after_id, last_id, versions, endpoints)
            SELECT gen_random_uuid(), gen_random_uuid(), jsonb_object_agg(gen_random_uuid()::text, g::text), '{}'
              FROM generate_series(1, 500) g
            """)
        try db.query(
            """
            INSERT INTO webhook_handoffs (endpoint_id, workspace_id, leased_until, outstanding, delivery_ids, event_ids)
            SELECT $1::uuid, $2::uuid, now(), 512, array_agg(g::bigint), array_agg('evt_01M8RAGFVTX900BQDYXK' || g)
              FROM generate_series(1, 512) g
            """, [endpoint, workspace])
        try db.query(
            """
            INSERT INTO webhook_events (id, workspace_id, type, body)
            SELECT 'evt_' || gen_random_uuid(), $1::uuid, 'message.created',
                   '{"body":"' || string_agg('Where is my order number ' || g || '?', ' ') || '"}'
              FROM generate_series(1, 200) g
            """, [workspace])
        return try db.query(
            """
            SELECT (SELECT pg_column_compression(versions) FROM webhook_backlog ORDER BY id DESC LIMIT 1),
                   (SELECT pg_column_compression(delivery_ids) FROM webhook_handoffs ORDER BY id DESC LIMIT 1),
                   (SELECT pg_column_compression(event_ids) FROM webhook_handoffs ORDER BY id DESC LIMIT 1),
                   (SELECT pg_column_compression(body) FROM webhook_events ORDER BY created_at DESC, id LIMIT 1)
            """
        ).rows[0]
    }

    @Test func theOutboxsWideValuesAreCompressedWithLZ4AndDownLeavesThemReadable() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        // Whatever the server's default, the columns decide.
        try db.execute("SET default_toast_compression = pglz")
        #expect(
            try methods(db) == [
                "webhook_backlog.versions=l", "webhook_events.body=l", "webhook_handoffs.delivery_ids=l",
                "webhook_handoffs.event_ids=l",
            ])
        #expect(try writeWideValues(db) == ["lz4", "lz4", "lz4", "lz4"])

        #expect(
            try MigrationRunner(connection: db).migrateDown(to: 39).map(\.version) == Array((40...latest).reversed()))
        #expect(try methods(db).allSatisfy { $0.hasSuffix("=") }, "the server's default again")
        // pglz gives up on the versions' random uuids (it stores them as they are, after trying:
        // the CPU LZ4 saves the writer) and compresses the rest.
        let pglz = try writeWideValues(db)
        #expect(pglz[0] == nil || pglz[0] == "pglz")
        #expect(Array(pglz[1...]) == ["pglz", "pglz", "pglz"])
        // What LZ4 wrote is read as it was written.
        #expect(try db.count("SELECT count(*) FROM webhook_handoffs WHERE cardinality(event_ids) = 512") == 2)
        #expect(
            try db.count(
                "SELECT count(*) FROM webhook_backlog WHERE (SELECT count(*) FROM jsonb_object_keys(versions)) = 500")
                == 2)
        #expect(try db.count("SELECT count(*) FROM webhook_events WHERE length(body) > 5000") == 2)

        #expect(try MigrationRunner(connection: db).up().map(\.version) == Array(40...latest))
        #expect(try writeWideValues(db) == ["lz4", "lz4", "lz4", "lz4"])
        #expect(try SchemaVerifier(connection: db).verify() == [])
    }
}
