/// Plans that stay right as the tables grow, for the background passes
/// whose plans live as long as their connection (docs/database.md, "Search";
/// docs/webhooks.md, "Handed over, not claimed"; issues 34 and 36).
///
/// - `switchboard_index_search` plans without sequential scans. Migration 25
///   forced its generic plan, which PL/pgSQL makes once per connection: on a
///   new database, with `chats` nearly empty, it read each backlog range by
///   scanning the whole table, and kept doing so as the table grew (until an
///   `ANALYZE` of `chats` happened to invalidate it). A pass of one message
///   over 20,000 stored took 2.7 ms and a scan of `chats`, against 0.55 ms by
///   the key. One capacity run of `loadtest bench-webhooks` had the indexer
///   at 63 µs of PostgreSQL's CPU per delivery where other runs had 6-10,
///   likely this plan (the run's plan was not captured).
///   `SearchIndexPlanTests` holds it to the key.
/// - `switchboard_webhook_claim` plans without sequential scans too. Its
///   generic plan, made on a new database's empty `webhook_deliveries`,
///   scanned the whole table for every claim as deliveries came due: a
///   claim of 10 among 20,000 due took 50 ms and two scans of the table,
///   against 1 ms by the due index (`WebhookQueuePlanTests`). Claims are
///   the path of every retry and of a backlog after a receiver's outage.
/// - Not forced: a generic plan for `switchboard_webhook_batch_deliveries`.
///   PL/pgSQL plans it afresh for most calls (1,186 of 1,356 in one capacity
///   run: 1.4 s of planning, about 6 µs per delivery), but its generic plan,
///   estimated for an array of unknown length, joins the pass's CTEs as if
///   they held a few rows: on a database with a million deliveries and a
///   large backlog, a pass of 200 messages took 99 ms with it against 7 ms
///   planned afresh, one of 2,000 229 ms against 68 (a `bench-webhooks`
///   drain ran at 2,078 deliveries/s with it). Migration 34 forces it after
///   all, with nested loops off so that those joins are hashed.
///
/// Only the functions' settings change: online. Down resets them.
enum Migration0031 {
    static let migration = Migration(version: 31, name: "background_plans_by_key", sql: sql, down: down)

    private static let sql = """
        ALTER FUNCTION switchboard_index_search(int) SET enable_seqscan = off;
        ALTER FUNCTION switchboard_webhook_claim(int, int, uuid[], bigint, bigint) SET enable_seqscan = off;
        """

    private static let down = """
        ALTER FUNCTION switchboard_index_search(int) RESET enable_seqscan;
        ALTER FUNCTION switchboard_webhook_claim(int, int, uuid[], bigint, bigint) RESET enable_seqscan;
        """
}
