/// A message's event body is built by the gateway, not by the expander's
/// statement (docs/webhooks.md, "Message bodies built by the gateway"; issue
/// 34).
///
/// Every `message.created` and `note.created` event had its JSON body built
/// in `switchboard_webhook_batch_deliveries` (`to_json` of each string,
/// `concat` of the pieces), stored with the event and returned with each
/// delivery handed over. Measured inside the pass (2026-12-01, 50 passes of
/// 1,024 deliveries, 512 handed over, each rolled back, five rounds): 34-42
/// µs a delivery as it was, 21-28 with the body left out, the body's SQL
/// 10-12 µs a delivery in most rounds; and the database is the one part of
/// a cluster that every node shares.
///
/// Now an event of a message stores the message's id and its session's
/// version at the batch (`message_id`, `session_version`) and no body: a
/// message is never changed once stored (only migration 3's backfill updated
/// `chats`, before any event), so the body is the same bytes whenever it is
/// built from them. The pass returns, with each delivery handed over, the
/// message's columns instead of a body, and the gateway builds the body
/// (`MessageEventBody`) byte for byte as the SQL functions do, which a test
/// checks against them over generated messages. Everything else that sends or
/// reads an event's body (a claim, a retry, the recovery of a handoff whose
/// holder died, the tests) reads `switchboard_webhook_event_body`, which
/// returns the stored body, or builds a message's from its row with migration
/// 13's functions: a retry sends the bytes the first attempt sent. Events of
/// sessions and tests keep their stored body; a check holds that every event
/// has one or the other.
///
/// The expansion also returns the pass's rows as they come (`RETURN QUERY`)
/// instead of copying each into a row of its own, a PL/pgSQL assignment per
/// column: the pass now counts its backlog rows, takes the expansion's `more`
/// (one parameter more) and notifies the dispatchers itself
/// (`switchboard_webhook_notify_due`, once, in its row of counts). Measured
/// with the body's change in capacity drains (2026-12-01): the expander's
/// backend 36-41 µs a delivery before, 29-30 after; the gateway's expander
/// thread about 2.5 µs more.
///
/// Online: two nullable columns and a dropped `NOT NULL` (catalog updates
/// under the table's lock), a check validated over the table (a scan that
/// reads no body); the expansion functions are dropped and made again with
/// their settings (their results change), the claim replaced with its
/// signature and settings. A gateway of the previous release calls the
/// expansion as before but reads a result it does not know, and reads a NULL
/// body in its claims: it sends nothing until it is replaced, and what it
/// holds comes due when its lease ends. Down writes every message event's body
/// into its row, then restores migration 39's expansion and 37's claim.
enum Migration0041 {
    static let migration = Migration(
        version: 41, name: "webhook_message_bodies_built_by_the_gateway", sql: sql, down: down)

    private static let eventBodySignature = "switchboard_webhook_event_body(text, text, uuid, text, uuid, text)"

    /// What the pass returns for each delivery handed over, after its handoff,
    /// in place of the body: the message's columns as `MessageEventBody` takes them.
    static let messageColumns = """
        message_id uuid, message_session_id uuid, message_seq bigint,
                       message_client_msg_id text, message_kind text, message_body text, message_sender_id text,
                       message_sender_role text, message_sender_name text, message_time text,
                       message_attachments text, session_version text, event_type text, event_workspace_id uuid
        """

    static let batchSignature =
        "switchboard_webhook_batch_deliveries(bigint[], int, timestamptz, int, uuid[], int[], boolean)"

    private static let sql = """
        ALTER TABLE webhook_events ALTER COLUMN body DROP NOT NULL, ADD COLUMN message_id uuid,
            ADD COLUMN session_version text;
        ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_body_or_message
            CHECK (body IS NOT NULL OR message_id IS NOT NULL) NOT VALID;
        ALTER TABLE webhook_events VALIDATE CONSTRAINT webhook_events_body_or_message;
        \(eventBodyFunction)
        \(notifyFunction)
        DROP FUNCTION \(Migration0039.expandSignature);
        DROP FUNCTION \(Migration0039.batchSignature);
        \(batchFunction)
        REVOKE EXECUTE ON FUNCTION \(batchSignature) FROM PUBLIC;
        \(expandFunction)
        \(claimFunction)
        """

    /// The pass's count of deliveries it leaves due, notifying the dispatchers of every node (at
    /// commit) when there are any: evaluated once, in the row of the pass's counts.
    private static let notifyFunction = """
        CREATE FUNCTION switchboard_webhook_notify_due(p_due int) RETURNS int
        LANGUAGE plpgsql AS $$
        BEGIN
            IF p_due > 0 THEN
                PERFORM pg_notify('switchboard_webhooks', '');
            END IF;
            RETURN p_due;
        END;
        $$;
        """

    /// An event's body: the one stored, or, for a message's event, built from
    /// the message's row as migration 36's pass built it.
    private static let eventBodyFunction = #"""
        -- The body an event's every attempt sends: p_body when the event stored one (a session's
        -- change, a test), else its message's (p_message_id), built as migration 36's pass built
        -- it, with its session's version at the batch (p_version, NULL for none). Inlined into the
        -- statement that calls it (a SQL function of one expression, STABLE like what it calls).
        CREATE FUNCTION switchboard_webhook_event_body(
            p_id text, p_type text, p_workspace_id uuid, p_body text, p_message_id uuid, p_version text)
        RETURNS text
        LANGUAGE sql STABLE AS $$
            SELECT coalesce(p_body, (
                SELECT switchboard_webhook_body(
                           p_id, p_type, switchboard_webhook_time(m.created_at), p_workspace_id,
                           concat('{"message":',
                                  switchboard_webhook_message(
                                      m.session_id, m.seq, m.id, m.client_msg_id, m.kind, m.content,
                                      coalesce(m.sender_id, m.user_id::text), m.role, m.sender_name,
                                      switchboard_webhook_time(m.created_at), m.attachments),
                                  ',"session":{"id":"', m.session_id, '","version":', coalesce(p_version, 'null'),
                                  '}}'))
                  FROM chats m
                 WHERE m.id = p_message_id))
        $$;
        """#

    /// Migration 39's pass, storing each message event's message and version
    /// instead of a body, and returning the message's columns with each
    /// delivery handed over.
    static let batchFunction: String = {
        var sql = SQLText.replacing(
            "body text, created_at float8,\n               handoff_id bigint)\nLANGUAGE plpgsql SECURITY DEFINER",
            with: "created_at float8, handoff_id bigint,\n               \(messageColumns))\n"
                + "LANGUAGE plpgsql SECURITY DEFINER",
            count: 1, in: Migration0039.batchFunction)
        sql = SQLText.replacing(
            "    p_held_counts int[])\nRETURNS TABLE (messages int, events int, due int, delivery_id bigint,",
            with: "    p_held_counts int[], p_more boolean)\n"
                + "RETURNS TABLE (ranges int, messages int, events int, due int, more boolean, delivery_id bigint,",
            count: 1, in: sql)
        sql = SQLText.replacing(
            from: "    -- Each event's body, built once: the event's row and the deliveries handed over carry it.\n",
            through: "'}}')) AS body\n",
            with: """
                    -- Each event, narrow: its message's body is built where it is sent (by the gateway for
                    -- what is handed over; switchboard_webhook_event_body for a claim).
                    events AS MATERIALIZED (
                        SELECT s.ord, s.event_id, s.workspace_id, s.type, s.created_at, s.batch_endpoints,
                               s.id AS message_id, s.batch_version

                """, count: 1, in: sql)
        sql = SQLText.replacing(
            """
                    INSERT INTO webhook_events (id, workspace_id, type, body, created_at)
                    SELECT e.event_id, e.workspace_id, e.type, e.body, e.created_at FROM events e
            """,
            with: """
                        INSERT INTO webhook_events (id, workspace_id, type, created_at, message_id, session_version)
                        SELECT e.event_id, e.workspace_id, e.type, e.created_at, e.message_id, e.batch_version FROM events e
                """, count: 1, in: sql)
        return SQLText.replacing(
            from: "    -- The bodies joined once, to what is handed over; sorted as targets were.\n",
            through: "           NULL, NULL;\n",
            with: """
                    -- The messages joined once, to what is handed over; sorted as targets were.
                    (SELECT NULL::int, NULL::int, NULL::int, NULL::int, NULL::boolean, t.delivery_id, t.event_id,
                            t.endpoint_id, h.url, h.secret, h.previous_secret, extract(epoch FROM t.created_at)::float8,
                            o.id, s.id, s.session_id, s.seq, s.client_msg_id, s.kind, s.content,
                            coalesce(s.sender_id, s.user_id::text), s.role, s.sender_name, s.time, s.attachments::text,
                            s.batch_version, s.type, s.workspace_id
                       FROM targets t
                       JOIN stored s ON s.ord = t.ord
                       JOIN hooks h ON h.id = t.endpoint_id
                       JOIN handoffs o ON o.endpoint_id = t.endpoint_id
                      WHERE t.handed
                      ORDER BY t.ord, t.endpoint_id)
                    UNION ALL
                    -- The counts, last: what the expansion passes on as its own.
                    SELECT cardinality(p_ids), (SELECT count(*) FROM stored)::int, (SELECT count(*) FROM written)::int,
                           switchboard_webhook_notify_due((SELECT count(*) FROM targets WHERE NOT handed)::int), p_more,
                           NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                           NULL, NULL, NULL, NULL, NULL, NULL;

                """, count: 1, in: sql)
    }()

    /// Migration 39's expansion, returning the pass's rows as they come (`RETURN QUERY`): it
    /// copied each handed-over delivery's columns one by one into a row of its own (a
    /// PL/pgSQL assignment each), and the pass now returns twice as many. The pass notifies and
    /// counts; the expansion decides `more` and answers alone when it takes nothing.
    static let expandFunction = """
        CREATE FUNCTION switchboard_webhook_expand(
            p_budget int, p_handoff int, p_lease_seconds int, p_per_endpoint int, p_held_endpoints uuid[],
            p_held_counts int[])
        RETURNS TABLE (ranges int, messages int, events int, due int, more boolean, delivery_id bigint, event_id text,
                       endpoint_id uuid, url text, secret text, previous_secret text, created_at float8,
                       handoff_id bigint, \(messageColumns))
        LANGUAGE plpgsql SET enable_seqscan = off SET jit = off AS $$
        #variable_conflict use_column
        DECLARE
            v_budget int := greatest(p_budget, 1);
            v_ids bigint[];
            v_locked int;
            v_split bigint;
            v_take bigint;
            v_head bigint;
        BEGIN
        \(rowsTaken)
            IF cardinality(v_ids) > 0 THEN
                RETURN QUERY SELECT * FROM switchboard_webhook_batch_deliveries(
                    v_ids, greatest(p_handoff, 0), now() + p_lease_seconds * interval '1 second', p_per_endpoint,
                    p_held_endpoints, p_held_counts, v_locked > cardinality(v_ids) OR v_split IS NOT NULL);
                RETURN;
            END IF;
            -- Nothing to take: the counts alone.
            ranges := 0;
            messages := 0;
            events := 0;
            due := 0;
            more := v_locked > 0 OR v_split IS NOT NULL;
            RETURN NEXT;
        END;
        $$;
        """

    /// Migration 39's expansion's first statements, as they are: the backlog rows it takes
    /// (`v_ids`, `v_locked`), and the batch split where the budget ends (`v_split`).
    private static let rowsTaken = SQLText.span(
        from: "    -- Each row's width",
        through: "        v_ids := array_replace(v_ids, v_split, v_head);\n    END IF;\n",
        in: Migration0039.expandFunction)

    /// Migration 37's claim, sending each event's body as `switchboard_webhook_event_body` gives it.
    private static let claimFunction = SQLText.replacing(
        "SELECT ev.body, ev.created_at FROM webhook_events ev",
        with: """
            SELECT switchboard_webhook_event_body(ev.id, ev.type, ev.workspace_id, ev.body,
                                                                              ev.message_id, ev.session_version) AS body,
                                                       ev.created_at
                                                  FROM webhook_events ev
            """, count: 1, in: Migration0037.sql)

    private static let down = """
        UPDATE webhook_events ev
           SET body = switchboard_webhook_event_body(ev.id, ev.type, ev.workspace_id, ev.body, ev.message_id,
                                                     ev.session_version)
         WHERE ev.body IS NULL;
        \(Migration0037.sql)
        DROP FUNCTION \(Migration0039.expandSignature);
        DROP FUNCTION \(batchSignature);
        DROP FUNCTION switchboard_webhook_notify_due(int);
        \(Migration0039.batchFunction)
        REVOKE EXECUTE ON FUNCTION \(Migration0039.batchSignature) FROM PUBLIC;
        \(Migration0039.expandFunction)
        DROP FUNCTION \(eventBodySignature);
        ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_body_or_message, DROP COLUMN message_id,
            DROP COLUMN session_version, ALTER COLUMN body SET NOT NULL;
        """
}
