/// A pass of the webhook expander locks the backlog rows it may take, not as
/// many rows as its budget has messages (docs/webhooks.md, "Handed over, not
/// claimed"; issue 34).
///
/// A pass finds the backlog rows its budget covers by locking rows in id
/// order (`FOR UPDATE SKIP LOCKED`) and summing their widths. A row is a
/// writer's batch of one message or more, so the pass locked `budget + 1`
/// rows to be sure of reaching the budget: 129 to 2,001 row locks (each a
/// write to the row and a WAL record), when in a capacity drain each row
/// holds hundreds of messages and a pass takes two or three. That statement
/// alone was 0.3-0.5 ms a pass (`pg_stat_statements`, two capacity runs,
/// 2026-11-28), and the rows
/// it locked and did not take were skipped by every other node's expander
/// until it committed.
///
/// - `switchboard_webhook_expand`: as migration 29's, except that a pass
///   locks at most 33 rows and takes at most the first 32 (still no more
///   messages than its budget). When there were more, `more` is true and the
///   next pass goes on at once, as it does after a budget that ran out.
///
/// Only the function changes, its signature kept: online. Down restores
/// migration 29's.
enum Migration0032 {
    static let migration = Migration(version: 32, name: "webhook_expansion_locks_few_rows", sql: sql, down: down)

    /// Backlog rows a pass takes at most.
    static let rowsPerPass = 32

    static let sql: String = {
        var sql = SQLText.replacing(
            "LIMIT v_budget + 1\n", with: "LIMIT least(v_budget, \(rowsPerPass)) + 1\n", count: 1,
            in: Migration0029.expandFunction)
        sql = SQLText.replacing(
            "FROM (SELECT t.id, t.width, sum(t.width) OVER (ORDER BY t.id) - t.width AS before\n",
            with:
                "FROM (SELECT t.id, t.width, sum(t.width) OVER (ORDER BY t.id) - t.width AS before,\n"
                + "                           row_number() OVER (ORDER BY t.id) AS n\n",
            count: 1, in: sql)
        return SQLText.replacing(
            "FILTER (WHERE k.before < v_budget", with: "FILTER (WHERE k.n <= \(rowsPerPass) AND k.before < v_budget",
            count: 3, in: sql)
    }()

    private static let down = Migration0029.expandFunction
}
