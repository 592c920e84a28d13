/// Functions planned with a plan node turned off are never compiled to
/// machine code (docs/database.md, "Plans turned by settings, and never
/// compiled"; issues 34 and 36).
///
/// Several functions turn off sequential scans, bitmap scans or hash and
/// merge joins, so that their plans reach rows by key at any table size. A
/// node turned off is not forbidden: when a plan has no other way, it keeps
/// the node at a cost of 10^10 more, and with `jit = on` (PostgreSQL's
/// default) any plan costing more than `jit_above_cost` (100,000) is
/// compiled on every execution: about 150-190 ms a call on this machine
/// (migration 34 found it for the expander's statement, whose lateral joins
/// stay nested loops under `enable_nestloop = off`). None of these functions'
/// plans keeps such a node today (`pg_stat_statements` over capacity runs:
/// no statement of theirs compiled); should one come to, it costs a slow
/// plan, not also a compilation on every call.
///
/// - `jit = off` for `switchboard_index_search`, `switchboard_webhook_claim`,
///   `switchboard_webhook_record` and `switchboard_webhook_expand` (the batch
///   function has it since migration 34). The writer's connections, which
///   plan every statement with sequential and bitmap scans off, set it too
///   (`WriterLoop.sessionSettings`).
///
/// `ExpansionPlanTests.everyPlanWithANodeTurnedOffIsNeverCompiled` checks
/// every function of the schema and the writer's settings.
///
/// Settings of functions only: online. Down resets them.
enum Migration0035 {
    static let migration = Migration(version: 35, name: "plans_with_nodes_off_never_compiled", sql: sql, down: down)

    static let functions = [
        "switchboard_index_search(int)",
        "switchboard_webhook_claim(int, int, uuid[], bigint, bigint)",
        "switchboard_webhook_record(bigint[], uuid[], boolean[], int[], int[], text[], text[], float8[], int)",
        "switchboard_webhook_expand(int, int, int, int, uuid[], int[])",
    ]

    private static let sql = SQLText.each(functions) { "ALTER FUNCTION \($0) SET jit = off;" }

    private static let down = SQLText.each(functions) { "ALTER FUNCTION \($0) RESET jit;" }
}
