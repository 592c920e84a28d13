/// The expander's batch statement is planned once per connection, with
/// hash joins, and never compiled (docs/webhooks.md, "Planned once, joined
/// by hashes"; issue 34).
///
/// `switchboard_webhook_batch_deliveries` runs one statement per pass, and
/// PL/pgSQL planned it afresh on most calls: its generic plan's estimates
/// never beat the custom plans'. Planning it was about 1.2 ms of a pass's
/// 5.5 ms (`pg_stat_statements`, capacity drains of 2026-11-29: the function
/// 5.49 ms a call, its statement 4.30 ms of execution; perf: 16% of the
/// expander's samples under `GetCachedPlan`, about 5 µs a delivery). A
/// generic plan was tried on 2026-11-28 and dropped: in the standard run's
/// long drain a pass of 200 messages took 99 ms against 7 (the plan itself
/// was not captured). A join of two CTE scans by a nested loop is the way a
/// plan of this statement becomes quadratic in the pass's size, and a
/// generic plan cannot know the pass's size; so:
///
/// - `plan_cache_mode = force_generic_plan`: planned once per connection.
/// - `enable_nestloop = off`: every join that can be hashed is, so no join
///   is quadratic in the pass's size whatever the plan assumed of it. The
///   joins left as nested loops are the lateral ones, each a lookup by key
///   per backlog row or endpoint, which nothing else can do.
/// - `jit = off`: a plan that keeps a disabled join costs 10^10 per such
///   join, far above `jit_above_cost`, and PostgreSQL would compile it to
///   machine code on every call (about 150 ms, where the pass takes 4).
/// - The endpoint lookup by key can use only the primary key: its
///   `deleted_at IS NULL` let the planner read the endpoints by the partial
///   index `idx_webhook_endpoints_workspace` instead, filtering every live
///   endpoint by id, and it did so in a plan made while the table was empty
///   and analyzed (the two indexes cost the same then). A generic plan keeps
///   that choice as endpoints are added: every pass would read all of them.
///   The condition is now `coalesce(deleted_at, 'infinity') = 'infinity'`, which
///   does not imply that index's predicate.
///
/// `WebhookLookupTests` still holds the pass to reading its own messages and
/// endpoints by key on a generic plan made on small tables;
/// `ExpansionPlanTests` checks the settings, the endpoint lookup's index,
/// and that every nested loop of the plan is over an index or a function.
///
/// The function is replaced (CREATE OR REPLACE keeps migration 33's
/// privileges), its signature kept: online. Down restores migration 29's.
enum Migration0034 {
    static let migration = Migration(version: 34, name: "webhook_expansion_planned_once", sql: sql, down: down)

    /// The settings the function is planned under, besides migration 28's
    /// `enable_seqscan = off`.
    static let settings = "SET plan_cache_mode = force_generic_plan SET enable_nestloop = off SET jit = off"

    private static let sql: String = {
        let sql = SQLText.replacing(
            "SET search_path FROM CURRENT SET enable_seqscan = off AS $$",
            with: "SET search_path FROM CURRENT SET enable_seqscan = off\n        \(settings) AS $$", count: 1,
            in: Migration0029.batchFunction)
        return SQLText.replacing(
            "WHERE e.id = x.id AND e.deleted_at IS NULL\n",
            with: "WHERE e.id = x.id AND coalesce(e.deleted_at, 'infinity') = 'infinity'\n", count: 1, in: sql)
    }()

    private static let down = Migration0029.batchFunction
}
