/// Plans that stay right as the tables grow, for the two background passes
/// whose plans live as long as their connection (docs/database.md, "Search";
/// docs/webhooks.md, "Handed over, not claimed"; issues 34 and 36).
///
/// - `switchboard_index_search` plans without sequential scans. Migration 25
///   forced its generic plan, which PL/pgSQL makes once per connection: on a
///   new database, with `chats` nearly empty, it read each backlog range by
///   scanning the whole table, and kept doing so as the table grew (until an
///   `ANALYZE` of `chats` happened to invalidate it). A pass of one message
///   over 20,000 stored took 2.7 ms and a scan of `chats`, against 0.55 ms by
///   the key; in a capacity run of `loadtest bench-webhooks` the indexer used
///   63 µs of PostgreSQL's CPU per message where other runs used 6-10.
///   `SearchIndexPlanTests` holds it to the key.
/// - `switchboard_webhook_claim` plans without sequential scans too. Its
///   generic plan, made on a new database's empty `webhook_deliveries`,
///   scanned the whole table for every claim as deliveries came due: a
///   claim of 10 among 20,000 due took 50 ms and two scans of the table,
///   against 1 ms by the due index (`WebhookQueuePlanTests`). Claims are
///   the path of every retry and of a backlog after a receiver's outage.
/// - `switchboard_webhook_batch_deliveries` keeps its generic plan (made
///   without sequential scans since migration 28). PL/pgSQL chooses between
///   a custom plan per call and the generic one by their estimates, which
///   shift with the statistics: in one capacity run it planned 1,186 of its
///   1,356 calls afresh, 1.4 s of planning (6 µs per delivery), in others 10
///   to 15.
///
/// Only the functions' settings change: online. Down resets them.
enum Migration0031 {
    static let migration = Migration(version: 31, name: "background_plans_by_key", sql: sql, down: down)

    private static let sql = """
        ALTER FUNCTION switchboard_index_search(int) SET enable_seqscan = off;
        ALTER FUNCTION switchboard_webhook_claim(int, int, uuid[], bigint, bigint) SET enable_seqscan = off;
        ALTER FUNCTION switchboard_webhook_batch_deliveries(bigint[], int, timestamptz, int, uuid[], int[])
            SET plan_cache_mode = force_generic_plan;
        """

    private static let down = """
        ALTER FUNCTION switchboard_index_search(int) RESET enable_seqscan;
        ALTER FUNCTION switchboard_webhook_claim(int, int, uuid[], bigint, bigint) RESET enable_seqscan;
        ALTER FUNCTION switchboard_webhook_batch_deliveries(bigint[], int, timestamptz, int, uuid[], int[])
            RESET plan_cache_mode;
        """
}
