/// The writer's batch a little lighter per session (docs/writer.md, "Against
/// the floor"; issue 36).
///
/// `scripts/bench-writer`'s floor run (batches of 20 over 20 sessions,
/// `perf` on the writer's backends, 2026-11-27): the `updated_at` trigger,
/// a PL/pgSQL call for every session row the batch bumps, took 3.1% of the
/// backends' time, and the query that returns a batch's reopen events ran
/// (its executor started and stopped) for every batch, though nearly none
/// has any.
///
/// - The writer's bump sets `updated_at = now()` itself, and the trigger
///   now runs only for an update that leaves `updated_at` as it was: every
///   other update of `chat_sessions` still gets the transaction's time, as
///   before, and the writer's rows get the same value the trigger gave
///   them. An update that sets `updated_at` to something else now keeps it
///   (none does). `SchemaVerifier`'s check (an enabled trigger calling
///   `update_updated_at()`) holds.
/// - The reopen events' query runs only when the batch reopened a session.
///
/// Online: the trigger replaced and the function replaced in place, in one
/// transaction (a short lock on `chat_sessions` against writes).
enum Migration0026 {
    static let migration = Migration(version: 26, name: "writer_sets_updated_at", sql: sql, down: down)

    static let appendFunction: String = {
        var sql = SQLText.replacing(
            "                SET last_seq = s.last_seq + c.added,\n                       version = s.version + 1,\n",
            with:
                "                SET last_seq = s.last_seq + c.added,\n                       version = s.version + 1,\n"
                + "                       updated_at = now(),\n",
            count: 1, in: Migration0021.appendFunction)
        sql = SQLText.replacing(
            "           SET last_seq = s.last_seq + c.added,\n               version = s.version + 1,\n",
            with: "           SET last_seq = s.last_seq + c.added,\n               version = s.version + 1,\n"
                + "               updated_at = now(),\n",
            count: 1, in: sql)
        for indent in ["            ", "    "] {
            let events = [
                "RETURN QUERY",
                "SELECT 0::bigint, 'event'::text, e.id, e.seq, now(), 'visitor'::text, e.sender_id,",
                "       e.sender_name, 'event'::text, e.body, NULL::bigint, NULL::uuid, NULL::text,",
                "       NULL::text, NULL::text, NULL::text, NULL::text, NULL::timestamptz, NULL::timestamptz,",
                "       e.session_id, e.meta, NULL::timestamptz, NULL::text, NULL::text",
                "  FROM unnest(v_events) e;",
            ].map { indent + $0 + "\n" }.joined()
            sql = SQLText.replacing(
                "\n" + events,
                with: "\n\(indent)IF cardinality(v_events) > 0 THEN\n" + events + "\(indent)END IF;\n", count: 1,
                in: sql)
        }
        return sql
    }()

    private static let sql =
        """
        DROP TRIGGER chat_sessions_updated_at ON chat_sessions;
        -- The writer sets updated_at itself (one PL/pgSQL call fewer per session and batch).
        CREATE TRIGGER chat_sessions_updated_at
            BEFORE UPDATE ON chat_sessions
            FOR EACH ROW WHEN (NEW.updated_at IS NOT DISTINCT FROM OLD.updated_at)
            EXECUTE FUNCTION update_updated_at();

        """ + appendFunction + "\n"

    /// Migration 2's trigger and migration 21's function, as they were.
    private static let down =
        """
        DROP TRIGGER chat_sessions_updated_at ON chat_sessions;
        CREATE TRIGGER chat_sessions_updated_at
            BEFORE UPDATE ON chat_sessions
            FOR EACH ROW EXECUTE FUNCTION update_updated_at();

        """ + Migration0021.appendFunction + "\n"
}
