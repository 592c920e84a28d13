import Foundation
import SwitchboardPostgres
import Testing

/// The dispatcher's record and claim keep their plans for the life of their
/// connection (a prepared statement; PL/pgSQL's generic plan), so those
/// plans must not depend on how big `webhook_deliveries` was when they were
/// made: the record finds each delivery by its key (migration 30), the claim
/// reads the due index (migration 31), whatever the statistics said.
@Suite struct WebhookQueuePlanTests {
    private static let arguments =
        "($1::bigint[], $2::uuid[], '{true}', '{204}', '{3}', '{NULL}', '{\"\"}', '{NULL}', 72)"

    /// Sequential scans of `webhook_deliveries` so far, as the statistics have them once this
    /// connection's are flushed.
    private func sequentialScans(_ admin: PostgresConnection) throws -> Int {
        try admin.query("SELECT pg_stat_force_next_flush()")
        let result = try admin.query(
            "SELECT seq_scan::text FROM pg_stat_user_tables WHERE relname = 'webhook_deliveries'")
        return Int(result.string(0, 0) ?? "") ?? -1
    }

    /// The fixture's owner connection, reading statistics as they are flushed, once
    /// `webhook_deliveries` is analyzed empty (as autovacuum does on a new deployment) and left
    /// so: only the plans made now can scan it.
    private func emptyTableAnalyzed(_ fixture: ReadersFixture) throws -> PostgresConnection {
        try fixture.admin.execute(
            """
            SET stats_fetch_consistency = none;
            ALTER TABLE webhook_deliveries SET (autovacuum_enabled = false);
            ANALYZE webhook_deliveries;
            """)
        return fixture.admin
    }

    @Test func aRecordPlannedOnAnEmptyTableStillFindsDeliveriesByKey() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let admin = try emptyTableAnalyzed(fixture)
        // The same statement without the function's plan settings, to show what they prevent.
        let definition = try admin.query(
            "SELECT pg_get_functiondef('switchboard_webhook_record'::regproc)"
        ).string(0, 0)!
        let unpinned =
            definition
            .replacingOccurrences(of: "switchboard_webhook_record", with: "unpinned_webhook_record")
            .split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.contains("SET enable_") }
            .joined(separator: "\n")
        #expect(unpinned != definition)
        try admin.execute(unpinned)

        let endpoint = UUID().uuidString.lowercased()
        func record(_ function: String, id: String) throws -> String? {
            try admin.query("SELECT \(function)\(Self.arguments)", ["{\(id)}", "{\(endpoint)}"]).string(0, 0)
        }
        // Plans made while the table is empty, and kept (PL/pgSQL keeps a generic plan after five calls).
        for _ in 0..<8 {
            #expect(try record("switchboard_webhook_record", id: "1") == "0")
            #expect(try record("unpinned_webhook_record", id: "1") == "0")
        }
        try admin.query(
            """
            INSERT INTO webhook_deliveries (endpoint_id, workspace_id, event_id, next_attempt_at)
            SELECT $1::uuid, gen_random_uuid(), 'evt_' || g, now() FROM generate_series(1, 20000) g
            """, [endpoint])
        let last = try admin.query("SELECT max(id)::text FROM webhook_deliveries").string(0, 0)!

        let before = try sequentialScans(admin)
        #expect(try record("switchboard_webhook_record", id: last) == "1")
        let pinned = try sequentialScans(admin) - before
        #expect(try record("unpinned_webhook_record", id: last) == "1")
        let loose = try sequentialScans(admin) - before - pinned
        #expect(pinned == 0, "the record scanned all 20,000 deliveries to find one")
        #expect(loose >= 1, "the statement without the settings kept a plan by key too: the test shows nothing")
        #expect(
            try admin.query("SELECT status FROM webhook_deliveries WHERE id = $1::bigint", [last]).string(0, 0)
                == "succeeded")
    }

    @Test func aClaimPlannedOnAnEmptyTableReadsTheDueIndex() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let admin = try emptyTableAnalyzed(fixture)
        try admin.query("INSERT INTO workspaces (id, name) VALUES ($1::uuid, 'w')", [fixture.workspaceID])
        let endpoint = try WebhookSessionEventTests.endpoint(fixture, [.messageCreated])
        try admin.query(
            """
            INSERT INTO webhook_events (id, workspace_id, type, body)
            VALUES ('evt_plan', $1::uuid, 'message.created', '{}')
            """, [fixture.workspaceID])
        func claim() throws -> Int {
            try admin.query("SELECT count(*) FROM switchboard_webhook_claim(10, 60, '{}', NULL, NULL)")
                .string(0, 0).flatMap { Int($0) } ?? -1
        }
        // Plans made while nothing is due, and kept.
        for _ in 0..<8 { #expect(try claim() == 0) }
        try admin.query(
            """
            INSERT INTO webhook_deliveries (endpoint_id, workspace_id, event_id, next_attempt_at)
            SELECT $1::uuid, $2::uuid, 'evt_plan', now() - interval '1 hour' FROM generate_series(1, 20000)
            """, [endpoint, fixture.workspaceID])

        let before = try sequentialScans(admin)
        #expect(try claim() == 10)
        #expect(try sequentialScans(admin) == before, "the claim scanned all 20,000 deliveries to take 10")
    }
}
