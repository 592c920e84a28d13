/// A claim is planned once per connection and updates the rows it locked
/// where it found them (docs/webhooks.md, "For the dispatcher"; issue 34).
///
/// `switchboard_webhook_claim` is the path of every retry and of every
/// backlog (a receiver's outage, a load the dispatcher did not keep up
/// with). Two costs of each call that its result does not need:
///
/// - PL/pgSQL planned its statement afresh on every call: the generic
///   plan, estimated for a `LIMIT` it cannot know, never beat the custom
///   ones. Planning took 0.45-0.6 ms of each claim (`EXPLAIN (SUMMARY)`,
///   forty times, on 200,000 due deliveries; `pg_stat_statements` put it
///   at 1.15 ms a claim in a capacity drain, 2026-11-30), where the claim
///   of 250 executes in about 7 ms. It now keeps its generic plan
///   (`plan_cache_mode = force_generic_plan`), made so that it is the plan
///   every custom plan was whatever the tables held when it was made: the
///   due index read in order, then per delivery its event and its endpoint
///   by key. Hash and merge joins are off, and the event and the endpoint
///   are each a `LATERAL` subquery with `LIMIT 1`: as plain joins, a
///   generic plan made on a new database's empty tables (analyzed) read
///   the whole of `webhook_events`' and `webhook_endpoints`' keys for every
///   claimed delivery, the key compared in a join filter (the two scans
///   cost the same on an empty table). `jit = off` (migration 35) matters
///   more now: the plan's estimate for an unknown `LIMIT` (557,396 on
///   200,000 due) is above `jit_above_cost`, and the claim would otherwise
///   be compiled on every call.
/// - The update joined the locked rows back to `webhook_deliveries` by the
///   primary key: one more descent of its B-tree per claimed delivery (4 of
///   the 21 buffers each read in `EXPLAIN (ANALYZE, BUFFERS)`). The CTE now
///   carries each locked row's `ctid` and the update finds the row by it (a
///   TID scan: one buffer). A row locked by the statement cannot move before
///   the update (only an update moves a row, and the lock keeps others
///   out); where the lock followed a row another transaction had updated,
///   the CTE's `ctid` is that of the version locked. The key is still
///   compared on the row found.
///
/// Measured in one backend, claims of 250 from a position among 200,000 due
/// deliveries of one endpoint, each batch then recorded succeeded, this
/// function and migration 24's taking turns of ten claims (30 turns a run,
/// 75,000 deliveries a side, 2026-11-30): 3.85, 4.53 and 3.99 s against
/// 3.95, 5.02 and 4.07 s in three runs, claims and records together (2-10%
/// less; the record is the same on both sides). A small cut: what a
/// claimed delivery costs is mostly its row's new version and index
/// entries, which this does not change.
///
/// The function is replaced with its signature and settings (migration
/// 24's `enable_bitmapscan`, 31's `enable_seqscan` and 35's `jit = off`,
/// which `CREATE OR REPLACE` would otherwise drop): online. Down restores
/// migration 24's function with those three settings, as it was at
/// version 36 (`WebhookQueuePlanTests`).
enum Migration0037 {
    static let migration = Migration(version: 37, name: "webhook_claim_planned_once", sql: sql, down: down)

    /// Migration 24's function as migrations 31 and 35 left it (their `ALTER FUNCTION ... SET`s
    /// written into it), replaceable: what down restores.
    private static let before = SQLText.replacing(
        "LANGUAGE plpgsql SET enable_bitmapscan = off AS $$",
        with: "LANGUAGE plpgsql SET enable_bitmapscan = off SET enable_seqscan = off SET jit = off AS $$", count: 1,
        in: SQLText.replacing(
            "CREATE FUNCTION switchboard_webhook_claim(", with: "CREATE OR REPLACE FUNCTION switchboard_webhook_claim(",
            count: 1, in: SQLText.function("switchboard_webhook_claim", in: Migration0024.migration.sql)))

    /// The edits, in order: the settings; the locked rows' place and event id; the update finding
    /// the row by that place, the event and the endpoint each by key (`LIMIT 1` keeps them lookups:
    /// plain joins planned on empty tables scanned all of them for every delivery).
    private static let edits = [
        (
            "LANGUAGE plpgsql SET enable_bitmapscan = off SET enable_seqscan = off SET jit = off AS $$",
            """
            LANGUAGE plpgsql SET enable_bitmapscan = off SET enable_seqscan = off SET jit = off
            SET enable_hashjoin = off SET enable_mergejoin = off SET plan_cache_mode = force_generic_plan AS $$
            """
        ),
        (
            "SELECT d.endpoint_id, d.id, d.next_attempt_at FROM webhook_deliveries d",
            "SELECT d.ctid AS row_id, d.endpoint_id, d.id, d.event_id, d.next_attempt_at FROM webhook_deliveries d"
        ),
        (
            "FROM due, webhook_events ev, webhook_endpoints e\n",
            """
            FROM due
                 CROSS JOIN LATERAL (SELECT ev.body, ev.created_at FROM webhook_events ev
                                      WHERE ev.id = due.event_id LIMIT 1) ev
                 CROSS JOIN LATERAL (SELECT e.url, e.secret, e.previous_secret, e.previous_secret_expires_at
                                       FROM webhook_endpoints e WHERE e.id = due.endpoint_id LIMIT 1) e

            """
        ),
        (
            "WHERE d.endpoint_id = due.endpoint_id AND d.id = due.id AND ev.id = d.event_id AND e.id = d.endpoint_id",
            "WHERE d.ctid = due.row_id AND d.endpoint_id = due.endpoint_id AND d.id = due.id"
        ),
    ]

    static let sql =
        edits.reduce(before) { sql, edit in SQLText.replacing(edit.0, with: edit.1, count: 1, in: sql) } + "\n"

    private static let down = before + "\n"
}
