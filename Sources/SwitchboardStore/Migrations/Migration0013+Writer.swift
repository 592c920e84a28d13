/// Migration 13's writer function: version 12's, which also writes the
/// batch's `message.created` and `note.created` events, in its own
/// transaction, when a workspace of the batch has an endpoint asking for
/// them (docs/writer.md, "Webhook outbox").
///
/// - The lock query, which already reads each session of the batch, also
///   gathers their workspaces. After the messages (on both paths), one
///   indexed probe of `idx_webhook_endpoints_live` asks whether any of those
///   workspaces has a live, enabled endpoint for either type; a batch whose
///   workspaces have none pays that probe and nothing else.
/// - Otherwise `switchboard_webhook_messages` reads the batch's new
///   messages back by key and writes their events and deliveries in one
///   statement (one multi-row insert each). A duplicate is no new message,
///   so it writes no event.
/// - The general path now names its new messages as the fast path does
///   (time-ordered, from the batch's prefix and each message's place), so
///   that on either path the batch's new messages are exactly the rows with
///   those ids: duplicates and refused sends have none.
/// - After the event rows, a last row with status `webhooks` carries in
///   `seq` how many events the batch wrote (none: no row), so that the
///   gateway can wake its dispatcher once the batch has committed.
extension Migration0013 {
    static let appendFunction: String = {
        var sql = SQLText.function("switchboard_append_messages", in: Migration0012.migration.sql)
        sql = SQLText.replacing(
            "CREATE FUNCTION switchboard_append_messages(",
            with: "CREATE OR REPLACE FUNCTION switchboard_append_messages(",
            count: 1, in: sql)
        sql = SQLText.replacing(
            "v_refused_ids uuid[];\n",
            with: "v_refused_ids uuid[];\n    v_workspaces uuid[];\n    v_webhook_events int;\n",
            count: 1, in: sql)
        // The lock query (both paths) gathers the live sessions' workspaces.
        sql = SQLText.replacing(
            "count(*) FILTER (WHERE l.live AND l.closed)",
            with:
                "count(*) FILTER (WHERE l.live AND l.closed),\n       array_agg(l.workspace_id) FILTER (WHERE l.live)",
            count: 2, in: sql)
        sql = SQLText.replacing(
            "INTO v_live, v_sessions, v_closed", with: "INTO v_live, v_sessions, v_closed, v_workspaces", count: 2,
            in: sql)
        sql = SQLText.replacing(
            "SELECT s.deleted_at IS NULL AS live, s.status = 'closed' AS closed FROM chat_sessions s",
            with:
                "SELECT s.deleted_at IS NULL AS live, s.status = 'closed' AS closed, s.workspace_id FROM chat_sessions s",
            count: 2, in: sql)
        // The general path's new messages take the fast path's ids.
        sql = SQLText.replacing(
            "INSERT INTO chats (session_id, workspace_id, seq,",
            with: "INSERT INTO chats (id, session_id, workspace_id, seq,",
            count: 1, in: sql)
        sql = SQLText.replacing(
            "SELECT n.session_id, n.workspace_id, b.base + n.n,",
            with: "SELECT (v_prefix || lpad(to_hex(v_tail + n.ord), 12, '0'))::uuid, n.session_id, n.workspace_id,\n"
                + "       b.base + n.n,",
            count: 1, in: sql)
        // After each path's event rows (the fast path then returns; the general path ends).
        sql = SQLText.replacing(
            "FROM unnest(v_events) e;\n", with: "FROM unnest(v_events) e;\n" + webhookStep, count: 2, in: sql)
        return sql
    }()

    /// The batch's events, when a workspace of it wants them, and the row that counts them.
    private static let webhookStep = """
        -- A key lookup per workspace (LIMIT 1 keeps it one): nothing else reads the endpoints.
        IF v_workspaces IS NOT NULL AND EXISTS (
               SELECT 1 FROM unnest(v_workspaces) AS w(id)
                CROSS JOIN LATERAL (
                    SELECT 1 FROM webhook_endpoints e
                     WHERE e.workspace_id = w.id AND e.enabled AND e.deleted_at IS NULL
                       AND e.events && '{message.created,note.created}'::text[]
                     LIMIT 1) h) THEN
            v_webhook_events := switchboard_webhook_messages(ARRAY(
                SELECT (v_prefix || lpad(to_hex(v_tail + g), 12, '0'))::uuid
                  FROM generate_series(1, cardinality(p_session_ids)) AS g), v_workspaces);
            IF v_webhook_events > 0 THEN
                RETURN QUERY
                SELECT 0::bigint, 'webhooks'::text, NULL::uuid, v_webhook_events::bigint, NULL::timestamptz,
                       NULL::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::bigint, NULL::uuid,
                       NULL::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::timestamptz,
                       NULL::timestamptz, NULL::uuid, NULL::text, NULL::timestamptz, NULL::text, NULL::text;
            END IF;
        END IF;

        """
}
