/// The writer's webhook backlog row takes its sessions' versions from the
/// batch's own update (docs/writer.md, "Webhook outbox"; issue 34).
///
/// Since migration 21, a batch of a workspace with an endpoint wrote its
/// backlog row (`webhook_backlog`: the batch's range, each session's
/// version, the endpoints) in a statement after the batch's main one, which
/// looked every session of the batch up again by key for the version the
/// main statement had just given it, and looked the workspace's endpoints
/// up twice (whether there were any, then which). `pg_stat_statements` over
/// a steady `scripts/bench-webhooks` run (2,000 msg/s over 500 sessions,
/// batches of about ten, 2026-11-30): that statement took 958 ms of
/// execution for 60,000 messages, 16 µs a message, paid only by workspaces
/// with an endpoint.
///
/// - The endpoints that want the batch's messages are read once, before the
///   main statement (`v_endpoints`: a key lookup per distinct workspace of
///   the batch, where the `EXISTS` looked one up per live session until it
///   found one).
/// - The row is written by a data-modifying CTE of the main statement from
///   the sessions it updated (`bumped`, whose `RETURNING` gives each
///   session's version as the batch leaves it, a reopen's bump included):
///   no session read again. A session of the batch that stores nothing (its
///   sends all duplicates) is not in it, and no message of the range names
///   it, so the expander never asks for it; a batch that stores nothing at
///   all still writes its row, with no versions, as before (the expander
///   finds no message in its range and removes it).
/// - The `webhooks` row that counts the batch's messages for the gateway is
///   returned on the same condition as before: some endpoint wants them.
///
/// Online: the function replaced in place. Down restores migration 26's.
enum Migration0038 {
    static let migration = Migration(
        version: 38, name: "webhook_backlog_versions_from_the_batch", sql: appendFunction + "\n",
        down: Migration0026.appendFunction + "\n")

    static let appendFunction: String = {
        var sql = SQLText.replacing(
            "    v_webhook_events int;\n", with: "    v_webhook_events int;\n    v_endpoints uuid[];\n", count: 1,
            in: Migration0026.appendFunction)
        // Before each path's main statement (the general path's after the fast path's
        // rollback recomputed v_workspaces).
        for indent in ["            ", "    "] {
            sql = SQLText.replacing(
                "\(indent)RETURN QUERY\n\(indent)WITH input AS (\n",
                with: endpointsLookup(indent) + "\(indent)RETURN QUERY\n\(indent)WITH input AS (\n", count: 1,
                in: sql)
        }
        sql = SQLText.replacing(
            "                RETURNING chats.id\n            )\n",
            with: "                RETURNING chats.id\n            ),\n" + backlogRow("            "), count: 1, in: sql
        )
        sql = SQLText.replacing(
            "         WHERE p_attachments IS NOT NULL AND a.id = x.id\n    )\n",
            with: "         WHERE p_attachments IS NOT NULL AND a.id = x.id\n    ),\n" + backlogRow("    "), count: 1,
            in: sql)
        // Migration 21's statement after the batch's (in both paths, as migration 26 left them), up to
        // its count; the rest (the `webhooks` row) stays.
        return SQLText.replacing(
            from: "-- A key lookup per workspace (LIMIT 1 keeps it one): nothing else reads the endpoints.\n",
            through: "    v_webhook_events := cardinality(p_session_ids);\n", with: webhooksRow, count: 2, in: sql)
    }()

    /// The endpoints of the batch's workspaces that want its messages, once per workspace.
    private static func endpointsLookup(_ indent: String) -> String {
        let sql = """
            -- The endpoints that want the batch's messages (a key lookup per workspace): its backlog row's.
            v_endpoints := ARRAY(
                SELECT h.id FROM (SELECT DISTINCT w.id FROM unnest(v_workspaces) AS w(id)) w
                 CROSS JOIN LATERAL (
                     SELECT e.id FROM webhook_endpoints e
                      WHERE e.workspace_id = w.id AND e.enabled AND e.deleted_at IS NULL
                        AND e.events && '{message.created,note.created}'::text[]
                     OFFSET 0) h);

            """
        return SQLText.indented(sql, by: indent)
    }

    /// The main statement's CTE that writes the batch's backlog row, when an endpoint wants it.
    private static func backlogRow(_ indent: String) -> String {
        let sql = """
            -- The batch's range, each session's version as this statement leaves it and the
            -- endpoints that want its messages: the expander's work, in the batch's transaction.
            backlog AS (
                INSERT INTO webhook_backlog (after_id, last_id, versions, endpoints)
                SELECT (v_prefix || lpad(to_hex(v_tail), 12, '0'))::uuid,
                       (v_prefix || lpad(to_hex(v_tail + cardinality(p_session_ids)), 12, '0'))::uuid,
                       coalesce(jsonb_object_agg(b.id, b.version), '{}'::jsonb), v_endpoints
                  FROM bumped b
                HAVING cardinality(v_endpoints) > 0
            )

            """
        return SQLText.indented(sql, by: indent)
    }

    /// What replaces it: the row went in with the main statement; the count as before.
    private static let webhooksRow = """
        -- The batch's backlog row went in with its main statement (migration 38).
        IF cardinality(v_endpoints) > 0 THEN
            v_webhook_events := cardinality(p_session_ids);

        """
}
