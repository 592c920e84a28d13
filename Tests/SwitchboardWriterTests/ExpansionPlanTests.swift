import Foundation
import SwitchboardPostgres
import SwitchboardTestSupport
import Testing

@testable import SwitchboardWriter

/// Migration 34: the expander's batch statement keeps one generic plan per
/// connection, so that plan must be right whatever a pass holds. Its joins
/// of CTE scans go by hashes: a nested loop over a CTE scan is quadratic in
/// the pass's size (a generic plan tried on 2026-11-28, before nested loops
/// were turned off, took 99 ms for a pass of 200 messages against 7; its
/// plan was not captured).
@Suite struct ExpansionPlanTests {
    static let function =
        "switchboard_webhook_batch_deliveries(bigint[], int, timestamptz, int, uuid[], int[], boolean)"

    /// The function's statement, its parameters and variable as `$1`...`$8`.
    private static func statement(_ db: PostgresConnection) throws -> String {
        try FunctionPlan.statement(
            db, function,
            placeholders: [
                ("p_held_endpoints", "$5::uuid[]"), ("p_held_counts", "$6::int[]"), ("p_per_endpoint", "$4::int"),
                ("p_lease_end", "$3::timestamptz"), ("p_handoff", "$2::int"), ("p_ids", "$1::bigint[]"),
                ("v_prefix", "$7::text"), ("p_more", "$8::boolean"),
            ])
    }

    @Test func theGenericPlanJoinsWhatThePassMadeByHashes() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        let settings = try FunctionPlan.settings(db, Self.function)
        for expected in ["plan_cache_mode=force_generic_plan", "enable_nestloop=off", "jit=off", "enable_seqscan=off"] {
            #expect(settings.contains { "\($0.0)=\($0.1)" == expected }, "\(expected) in \(settings)")
        }
        // The plan the function keeps: made under its own settings, on empty tables analyzed, as a
        // new deployment's first pass may make it (the endpoints' two indexes then cost the same).
        try db.execute("ANALYZE chats, webhook_backlog, webhook_endpoints")
        try FunctionPlan.adoptSettings(db, of: Self.function)
        try db.execute(
            "PREPARE pass(bigint[], int, timestamptz, int, uuid[], int[], text, boolean) AS " + Self.statement(db))
        let plan = try FunctionPlan.plan(
            db, "EXPLAIN (FORMAT JSON) EXECUTE pass('{1,2,3}', 100, now(), 50, '{}', '{}', 'evt_x', false)")
        let loops = FunctionPlan.nodes(plan).filter { $0["Node Type"] as? String == "Nested Loop" }
        // stored (each backlog row's messages), hooks (each backlog row's endpoints, each endpoint).
        #expect(loops.count >= 3)
        for loop in loops {
            let inner = (loop["Plans"] as? [[String: Any]] ?? []).first {
                $0["Parent Relationship"] as? String == "Inner"
            }
            // A lookup per outer row: by an index (under a Limit for the endpoints) or a function.
            let lookup = inner.flatMap {
                $0["Node Type"] as? String == "Limit" ? FunctionPlan.nodes($0).dropFirst().first : $0
            }
            let type = lookup?["Node Type"] as? String ?? "none"
            #expect(
                ["Index Scan", "Index Only Scan", "Function Scan"].contains(type),
                "a nested loop over \(type) (\(lookup?["CTE Name"] as? String ?? lookup?["Relation Name"] as? String ?? ""))"
            )
        }
        // Each endpoint by its key, not by a walk of the live endpoints' partial index.
        let endpointScans = FunctionPlan.nodes(plan).filter { $0["Relation Name"] as? String == "webhook_endpoints" }
        #expect(endpointScans.count == 1)
        #expect(endpointScans.allSatisfy { $0["Index Name"] as? String == "webhook_endpoints_pkey" })
    }

    /// Migration 36: the sorts that number a pass's events and decide what is
    /// handed over hold narrow rows, and its hash tables hold bodies once at
    /// most. Migration 34's hashed every message's row to join it to its
    /// batch's versions, then hashed every event's body and sorted it twice
    /// to decide what is handed over (much of a pass's time went to copying
    /// those rows and to page faults for their memory): without migration
    /// 36 this test finds bodies in both sorts and two hash tables.
    @Test func thePassSortsAndHashesNoBodyAndNoBatchVersions() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        try FunctionPlan.adoptSettings(db, of: Self.function)
        try db.execute(
            "PREPARE pass(bigint[], int, timestamptz, int, uuid[], int[], text, boolean) AS " + Self.statement(db))
        let plan = try FunctionPlan.plan(
            db, "EXPLAIN (VERBOSE, FORMAT JSON) EXECUTE pass('{1,2,3}', 100, now(), 50, '{}', '{}', 'evt_x', false)")
        /// A column of a CTE or table itself, as the plan names it (`e_2.body`), not an expression of it.
        func carries(_ node: [String: Any], _ columns: Set<String>) -> [String] {
            (node["Output"] as? [String] ?? []).filter { output in
                guard let dot = output.lastIndex(of: ".") else { return columns.contains(output) }
                return output.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }
                    && columns.contains(String(output[output.index(after: dot)...]))
            }
        }
        let wide: Set<String> = ["body", "versions"]
        let narrowParts = FunctionPlan.nodes(plan).filter {
            ["CTE stored", "CTE pairs", "CTE targets"].contains($0["Subplan Name"] as? String ?? "")
        }
        #expect(narrowParts.count == 3)
        for part in narrowParts {
            for node in FunctionPlan.nodes(part)
            where ["Sort", "WindowAgg", "Hash"].contains(node["Node Type"] as? String) {
                #expect(carries(node, wide).isEmpty, "\(part["Subplan Name"] ?? "") sorts \(carries(node, wide))")
            }
        }
        // The one join of bodies to deliveries may hash either side (the planner's choice, from
        // the statistics it planned with): at most one hash table of bodies a pass, never versions.
        let hashes = FunctionPlan.nodes(plan).filter { $0["Node Type"] as? String == "Hash" }
        #expect(hashes.allSatisfy { carries($0, ["versions"]).isEmpty })
        #expect(hashes.filter { !carries($0, ["body"]).isEmpty }.count <= 1)
    }

    /// Migration 35: a plan that keeps a node turned off costs 10^10 more,
    /// past `jit_above_cost`, and would be compiled on every execution. Every
    /// function that turns a node off, and the writer's connections, run
    /// without JIT.
    @Test func everyPlanWithANodeTurnedOffIsNeverCompiled() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        let functions = try db.query(
            """
            SELECT p.oid::regprocedure::text, 'jit=off' = ANY (p.proconfig) FROM pg_proc p
             WHERE p.pronamespace = current_schema()::regnamespace
               AND EXISTS (SELECT 1 FROM unnest(p.proconfig) c WHERE c LIKE 'enable\\_%=off')
            """)
        #expect(functions.rowCount >= 5)
        for row in 0..<functions.rowCount {
            #expect(functions.string(row, 1) == "t", "\(functions.string(row, 0) ?? "") may be compiled")
        }
        let writer = try database.connect()
        try writer.execute(WriterLoop.sessionSettings)
        #expect(try writer.query("SHOW enable_seqscan").string(0, 0) == "off")
        #expect(try writer.query("SHOW jit").string(0, 0) == "off")
    }
}
