import Foundation
import SwitchboardPostgres
import SwitchboardStore
import SwitchboardTestSupport
import Testing

/// The dispatcher's record and claim keep their plans for the life of their
/// connection (a prepared statement; PL/pgSQL's generic plan), so those
/// plans must not depend on how big `webhook_deliveries` was when they were
/// made: the record finds each delivery by its key (migration 30), the claim
/// reads the due index (migration 31), whatever the statistics said.
@Suite struct WebhookQueuePlanTests {
    private static let claimFunction = "switchboard_webhook_claim(int, int, uuid[], bigint, bigint)"

    private static let arguments =
        "($1::bigint[], $2::uuid[], '{true}', '{204}', '{3}', '{NULL}', '{\"\"}', '{NULL}', 72, '{NULL}', '{evt_1}')"

    /// A counter of the statistics views (`query` reads one value), as it is once this
    /// connection's statistics are flushed.
    private func flushedCount(_ admin: PostgresConnection, _ query: String) throws -> Int {
        try admin.query("SELECT pg_stat_force_next_flush()")
        return Int(try admin.query(query).string(0, 0) ?? "") ?? -1
    }

    /// Sequential scans of `webhook_deliveries` so far.
    private func sequentialScans(_ admin: PostgresConnection) throws -> Int {
        try flushedCount(admin, "SELECT seq_scan::text FROM pg_stat_user_tables WHERE relname = 'webhook_deliveries'")
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
        let entriesBefore = try indexEntriesRead(admin)
        #expect(try record("switchboard_webhook_record", id: last) == "1")
        let pinned = try sequentialScans(admin) - before
        // With sequential scans off, a plan that reads every delivery reads their index instead.
        let entries = try indexEntriesRead(admin) - entriesBefore
        #expect(entries < 100, "the record read \(entries) index entries to find one delivery")
        #expect(try record("unpinned_webhook_record", id: last) == "1")
        let loose = try sequentialScans(admin) - before - pinned
        #expect(pinned == 0, "the record scanned all 20,000 deliveries to find one")
        #expect(loose >= 1, "the statement without the settings kept a plan by key too: the test shows nothing")
        #expect(
            try admin.query("SELECT status FROM webhook_deliveries WHERE id = $1::bigint", [last]).string(0, 0)
                == "succeeded")
    }

    /// Index entries read in the outbox's delivery and handoff tables so far.
    private func indexEntriesRead(_ admin: PostgresConnection) throws -> Int {
        try flushedCount(
            admin,
            """
            SELECT sum(idx_tup_read)::text FROM pg_stat_user_indexes
             WHERE relname IN ('webhook_deliveries', 'webhook_handoffs')
            """)
    }

    /// Migration 39: the record's plan, made once per connection (its
    /// generic plan), while the tables were empty, still finds each claimed
    /// delivery's row, each handoff, and whether a handed-over delivery has a
    /// row yet, by key: index entries read count the rows looked at, since
    /// with sequential scans off a plan that reads a whole table reads its
    /// index instead.
    @Test func aRecordPlannedOnEmptyTablesLooksEachDeliveryAndHandoffUpByKey() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let admin = try emptyTableAnalyzed(fixture)
        try admin.execute("ANALYZE webhook_handoffs, webhook_endpoints")
        let endpoint = try endpointWithAnEvent(fixture)
        let record = """
            SELECT switchboard_webhook_record($1::bigint[], $2::uuid[], '{true,true}', '{204,204}', '{3,3}',
                                              '{NULL,NULL}', '{"",""}', '{NULL,NULL}', 72, $3::bigint[], '{evt_plan,evt_plan}')
            """
        // Plans made while nothing is there, and kept.
        for _ in 0..<8 {
            #expect(try admin.query(record, ["{1,2}", "{\(endpoint),\(endpoint)}", "{NULL,1}"]).string(0, 0) == "0")
        }
        try due(20000, of: endpoint, fixture)
        let claimed = try admin.query("SELECT max(id)::text FROM webhook_deliveries").string(0, 0)!
        let handoff = try admin.query(
            """
            INSERT INTO webhook_handoffs (endpoint_id, workspace_id, leased_until, outstanding, delivery_ids, event_ids)
            VALUES ($1::uuid, $2::uuid, now() + interval '1 minute', 1, ARRAY[nextval('webhook_deliveries_id_seq')],
                    '{evt_plan}')
            RETURNING id::text, delivery_ids[1]::text
            """, [endpoint, fixture.workspaceID])
        let (handoffID, handed) = (handoff.string(0, 0)!, handoff.string(0, 1)!)
        let before = try indexEntriesRead(admin)
        #expect(
            try admin.query(record, ["{\(claimed),\(handed)}", "{\(endpoint),\(endpoint)}", "{NULL,\(handoffID)}"])
                .string(0, 0) == "2")
        let read = try indexEntriesRead(admin) - before
        #expect(read < 100, "the record read \(read) index entries to write two deliveries")
        #expect(
            try admin.query(
                "SELECT string_agg(status, ',' ORDER BY id) FROM webhook_deliveries WHERE id IN ($1::bigint, $2::bigint)",
                [claimed, handed]
            ).string(0, 0) == "succeeded,succeeded")
        #expect(try admin.query("SELECT count(*) FROM webhook_handoffs").string(0, 0) == "0", "settled")
    }

    /// An endpoint of the fixture's workspace and one event, `evt_plan`: what due deliveries need.
    private func endpointWithAnEvent(_ fixture: ReadersFixture) throws -> String {
        try fixture.admin.query("INSERT INTO workspaces (id, name) VALUES ($1::uuid, 'w')", [fixture.workspaceID])
        let endpoint = try WebhookSessionEventTests.endpoint(fixture, [.messageCreated])
        try fixture.admin.query(
            """
            INSERT INTO webhook_events (id, workspace_id, type, body)
            VALUES ('evt_plan', $1::uuid, 'message.created', '{}')
            """, [fixture.workspaceID])
        return endpoint
    }

    /// `count` deliveries of `endpoint`'s event, due an hour ago.
    private func due(_ count: Int, of endpoint: String, _ fixture: ReadersFixture) throws {
        try fixture.admin.query(
            """
            INSERT INTO webhook_deliveries (endpoint_id, workspace_id, event_id, next_attempt_at)
            SELECT $1::uuid, $2::uuid, 'evt_plan', now() - interval '1 hour' FROM generate_series(1, $3::int)
            """, [endpoint, fixture.workspaceID, String(count)])
    }

    @Test func aClaimPlannedOnAnEmptyTableReadsTheDueIndex() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let admin = try emptyTableAnalyzed(fixture)
        let endpoint = try endpointWithAnEvent(fixture)
        func claim() throws -> Int {
            try admin.query("SELECT count(*) FROM switchboard_webhook_claim(10, 60, '{}', NULL, NULL)")
                .string(0, 0).flatMap { Int($0) } ?? -1
        }
        // Plans made while nothing is due, and kept.
        for _ in 0..<8 { #expect(try claim() == 0) }
        try due(20000, of: endpoint, fixture)

        let before = try sequentialScans(admin)
        #expect(try claim() == 10)
        #expect(try sequentialScans(admin) == before, "the claim scanned all 20,000 deliveries to take 10")
    }

    /// Migration 37: the claim's update finds each row it locked by its place, not by another
    /// descent of the primary key per delivery.
    @Test func aClaimUpdatesTheRowsItLockedWithoutLookingThemUpByKey() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let admin = try emptyTableAnalyzed(fixture)
        try due(50, of: try endpointWithAnEvent(fixture), fixture)
        func keyScans() throws -> Int {
            try flushedCount(
                admin, "SELECT idx_scan::text FROM pg_stat_user_indexes WHERE indexrelname = 'webhook_deliveries_pkey'")
        }

        let before = try keyScans()
        let claimed = try admin.query("SELECT id FROM switchboard_webhook_claim(20, 60, '{}', NULL, NULL)")
        let scans = try keyScans() - before
        #expect(claimed.rowCount == 20)
        #expect(scans == 0, "the claim looked up its 20 locked deliveries by key: \(scans) scans")
        let leased = try admin.query(
            """
            SELECT count(*)::text FROM webhook_deliveries
             WHERE attempts = 1 AND leased_until > now() + interval '50 seconds'
               AND next_attempt_at = leased_until
            """
        ).string(0, 0)
        #expect(leased == "20")
    }

    /// Migration 37: the claim keeps one generic plan per connection, so that plan must be the
    /// one every custom plan was, whatever the tables held when it was made (here: empty and
    /// analyzed): the due index read in order, then per delivery its row by the place the lock
    /// found it, its event and its endpoint by key.
    @Test func theClaimsGenericPlanLooksUpEachDeliverysRowsOneByOne() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let admin = try emptyTableAnalyzed(fixture)
        try admin.execute("ANALYZE webhook_events, webhook_endpoints")
        let settings = try FunctionPlan.settings(admin, Self.claimFunction).map { "\($0.0)=\($0.1)" }
        for expected in [
            "plan_cache_mode=force_generic_plan", "enable_hashjoin=off", "enable_mergejoin=off", "jit=off",
            "enable_seqscan=off", "enable_bitmapscan=off",
        ] {
            #expect(settings.contains(expected), "\(expected) in \(settings)")
        }
        try FunctionPlan.adoptSettings(admin, of: Self.claimFunction)
        let statement = try FunctionPlan.statement(
            admin, Self.claimFunction,
            placeholders: [
                ("p_limit", "$1::int"), ("p_lease_seconds", "$2::int"), ("p_busy", "$3::uuid[]"),
                ("v_after_at", "$4::timestamptz"), ("v_after_id", "$5::bigint"),
            ])
        try admin.execute("PREPARE claim(int, int, uuid[], timestamptz, bigint) AS " + statement)
        let plan = try FunctionPlan.plan(
            admin, "EXPLAIN (FORMAT JSON) EXECUTE claim(10, 60, '{}', '-infinity', 0)")
        let all = FunctionPlan.nodes(plan)
        let types = all.compactMap { $0["Node Type"] as? String }
        #expect(
            !types.contains("Hash Join") && !types.contains("Merge Join") && !types.contains("Seq Scan"), "\(types)")
        #expect(!types.contains("Sort"), "the due deliveries are sorted rather than read in the index's order")
        let due = all.filter { $0["Index Name"] as? String == "idx_webhook_deliveries_due" }
        #expect(due.count == 1)
        let deliveries = all.filter {
            $0["Relation Name"] as? String == "webhook_deliveries" && $0["Index Name"] as? String == nil
                && $0["Node Type"] as? String != "ModifyTable"
        }
        #expect(deliveries.map { $0["Node Type"] as? String } == ["Tid Scan"], "\(deliveries)")
        #expect(!all.contains { $0["Index Name"] as? String == "webhook_deliveries_pkey" })
        // The event and the endpoint each found by its key: no scan of a whole index with the key
        // compared in a join filter, as plain joins planned on these empty tables did.
        for table in ["webhook_events", "webhook_endpoints"] {
            let scans = all.filter { $0["Relation Name"] as? String == table }
            #expect(!scans.isEmpty)
            for scan in scans {
                #expect(scan["Index Name"] as? String == "\(table)_pkey")
                #expect(scan["Index Cond"] != nil, "\(table) read whole for every delivery: \(scan)")
            }
        }
        #expect(!all.contains { $0["Join Filter"] != nil }, "\(all.compactMap { $0["Join Filter"] })")
    }

    /// Migration 37's down restores the claim exactly as version 36 had it: its body and every
    /// setting (24's, 31's and 35's), which `CREATE OR REPLACE` sets anew from its own text.
    @Test func migratingDownFromThirtySevenRestoresTheClaimOfThirtySix() throws {
        func definition(_ db: PostgresConnection) throws -> String? {
            try db.query("SELECT pg_get_functiondef('\(Self.claimFunction)'::regprocedure)").string(0, 0)
        }
        let old = try TestDatabase()
        defer { old.drop() }
        try MigrationRunner(connection: old.connect(), migrations: Migrations.all.filter { $0.version <= 36 }).up()
        let rolledBack = try TestDatabase(migrated: true)
        defer { rolledBack.drop() }
        let db = try rolledBack.connect()
        #expect(try definition(db) != definition(old.connect()))
        try MigrationRunner(connection: db).migrateDown(to: 36)
        #expect(try definition(db) == definition(old.connect()))
    }
}
