/// Webhook events of messages made after the commit, from a backlog the
/// batch writes (docs/writer.md, "Webhook outbox"): migration 13 made every
/// batch of a workspace with an endpoint write each message's event (its body
/// built, about 540 bytes) and delivery in the batch's own transaction, 26-39%
/// of the writer's stored messages/s.
///
/// - `webhook_backlog`: the outbox of messages, one row per batch that has
///   an endpoint asking for its messages, written in the batch's transaction
///   (so a committed message always has its event or its backlog row, and a
///   rolled-back batch has neither): the batch's id range (its new messages'
///   ids are one run, migration 13), each session's version after the
///   batch, which the events carry and a later batch would have changed, and
///   the endpoints that wanted its messages then (enabled, live, asking for
///   `message.created` or `note.created`), which get the deliveries whatever
///   happens to them before the expansion, as they would have in the batch:
///   one disabled meanwhile holds them until it is enabled again.
///   Row-level security without a policy: only the owner reads or writes it.
/// - `switchboard_webhook_expand`: one pass of the gateway's
///   `WebhookExpander`: backlog rows in id order that no other node holds
///   (`SKIP LOCKED`), each turned into its events and deliveries (as
///   migration 13 wrote them, to the row's endpoints that are not deleted)
///   and deleted in one transaction, until the budget of messages is spent;
///   dispatchers on every node are notified at its commit.
/// - The writer's function writes the backlog row instead of the events.
///   Its `webhooks` result row now counts the messages handed to the backlog
///   (at most: duplicates and refused sends have none), and wakes the expander.
///
/// Events keep what they said: the body is built from the stored message and
/// the version the batch left; `created_at` is the message's (the batch's
/// commit), so the delivery latency still runs from the commit.
enum Migration0021 {
    static let migration = Migration(version: 21, name: "webhook_events_after_commit", sql: sql, down: down)

    private static let sql =
        """
        CREATE TABLE webhook_backlog (
            id bigserial PRIMARY KEY,
            after_id uuid NOT NULL,
            last_id uuid NOT NULL,
            versions jsonb NOT NULL,
            endpoints uuid[] NOT NULL,
            committed_at timestamptz NOT NULL DEFAULT now()
        );
        -- Written by the writer's function and read by the expander, both as the owner: no
        -- policy, so a role confined by row-level security neither sees nor forges a row.
        ALTER TABLE webhook_backlog ENABLE ROW LEVEL SECURITY;

        """ + batchEventsFunction + "\n\n" + expandFunction + "\n\n" + appendFunction + "\n"

    // Down: what waits is expanded first (no committed message loses its
    // event), then migration 20's writer function, which writes events itself.
    private static let down =
        """
        SELECT switchboard_webhook_expand(2147483647);
        DROP FUNCTION switchboard_webhook_expand(int);
        DROP FUNCTION switchboard_webhook_batch_events(uuid, uuid, jsonb, uuid[], timestamptz);
        DROP TABLE webhook_backlog;

        """ + Migration0020.appendFunction + "\n"

    /// The events and deliveries of the messages after `p_after_id` up to
    /// `p_last_id` (one batch's, stored at `p_committed_at`), as
    /// `switchboard_webhook_messages` writes them, with each session's
    /// version from `p_versions`; to those of `p_endpoints` not deleted since
    /// that ask for the type.
    static let batchEventsFunction = #"""
        CREATE FUNCTION switchboard_webhook_batch_events(
            p_after_id uuid, p_last_id uuid, p_versions jsonb, p_endpoints uuid[], p_committed_at timestamptz,
            OUT messages int, OUT events int)
        LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
        DECLARE
            v_prefix text := switchboard_webhook_id_prefix();
            -- A batch's messages share their time: spelled once.
            v_time text := switchboard_webhook_time(p_committed_at);
        BEGIN
            WITH stored AS MATERIALIZED (
                SELECT row_number() OVER (ORDER BY c.id) AS ord, c.*,
                       CASE WHEN c.kind = 'note' THEN 'note.created' ELSE 'message.created' END AS type
                  FROM (SELECT * FROM chats m WHERE m.id > p_after_id AND m.id <= p_last_id ORDER BY m.id) c
            ),
            hooks AS MATERIALIZED (
                SELECT h.* FROM unnest(p_endpoints) AS x(id)
                 CROSS JOIN LATERAL (
                     SELECT e.id, e.workspace_id, e.events FROM webhook_endpoints e
                      WHERE e.id = x.id AND e.deleted_at IS NULL
                        AND e.events && '{message.created,note.created}'::text[]
                     LIMIT 1) h
            ),
            wanted AS (
                SELECT s.*, v_prefix || switchboard_base32_4(s.ord) AS event_id,
                       CASE WHEN s.created_at = p_committed_at THEN v_time
                            ELSE switchboard_webhook_time(s.created_at) END AS time
                  FROM stored s
                 WHERE s.kind <> 'event'
                   AND EXISTS (SELECT 1 FROM hooks h WHERE h.workspace_id = s.workspace_id AND s.type = ANY (h.events))
            ),
            written AS (
                INSERT INTO webhook_events (id, workspace_id, type, body, created_at)
                SELECT w.event_id, w.workspace_id, w.type,
                       switchboard_webhook_body(
                           w.event_id, w.type, w.time, w.workspace_id,
                           concat('{"message":',
                                  switchboard_webhook_message(
                                      w.session_id, w.seq, w.id, w.client_msg_id, w.kind, w.content,
                                      coalesce(w.sender_id, w.user_id::text), w.role, w.sender_name, w.time,
                                      w.attachments),
                                  ',"session":{"id":"', w.session_id, '","version":',
                                  coalesce(p_versions ->> w.session_id::text, 'null'), '}}')),
                       w.created_at
                  FROM wanted w
                RETURNING webhook_events.id, webhook_events.workspace_id, webhook_events.type
            ),
            deliveries AS (
                INSERT INTO webhook_deliveries (workspace_id, event_id, endpoint_id, next_attempt_at)
                SELECT ev.workspace_id, ev.id, h.id, now()
                  FROM written ev JOIN hooks h ON h.workspace_id = ev.workspace_id AND ev.type = ANY (h.events)
            )
            SELECT (SELECT count(*) FROM stored), (SELECT count(*) FROM written) INTO messages, events;
        END;
        $$;
        """#

    /// One pass of the expander: whole backlog rows, oldest first, until
    /// `p_budget` messages were read (at least one row when any waits).
    static let expandFunction = #"""
        CREATE FUNCTION switchboard_webhook_expand(
            p_budget int, OUT ranges int, OUT messages int, OUT events int, OUT more boolean)
        LANGUAGE plpgsql AS $$
        DECLARE
            r record;
            v_messages int;
            v_events int;
        BEGIN
            ranges := 0;
            messages := 0;
            events := 0;
            more := false;
            FOR r IN SELECT b.id, b.after_id, b.last_id, b.versions, b.endpoints, b.committed_at FROM webhook_backlog b
                      ORDER BY b.id FOR UPDATE SKIP LOCKED LOOP
                IF ranges > 0 AND messages >= p_budget THEN
                    more := true;
                    EXIT;
                END IF;
                SELECT x.messages, x.events INTO v_messages, v_events
                  FROM switchboard_webhook_batch_events(
                           r.after_id, r.last_id, r.versions, r.endpoints, r.committed_at) x;
                DELETE FROM webhook_backlog WHERE id = r.id;
                ranges := ranges + 1;
                messages := messages + v_messages;
                events := events + v_events;
            END LOOP;
            IF events > 0 THEN
                PERFORM pg_notify('switchboard_webhooks', '');
            END IF;
        END;
        $$;
        """#

    /// Migration 20's writer function with the backlog row in place of the events.
    static let appendFunction: String = SQLText.replacing(
        """
            v_webhook_events := switchboard_webhook_messages(ARRAY(
                SELECT (v_prefix || lpad(to_hex(v_tail + g), 12, '0'))::uuid
                  FROM generate_series(1, cardinality(p_session_ids)) AS g), v_workspaces);

        """,
        with: """
                -- The batch's range, each session's version and the endpoints that want its
                -- messages, now: the expander's work.
                INSERT INTO webhook_backlog (after_id, last_id, versions, endpoints)
                SELECT (v_prefix || lpad(to_hex(v_tail), 12, '0'))::uuid,
                       (v_prefix || lpad(to_hex(v_tail + cardinality(p_session_ids)), 12, '0'))::uuid,
                       jsonb_object_agg(s.id, s.version),
                       ARRAY(SELECT h.id FROM (SELECT DISTINCT w.id FROM unnest(v_workspaces) AS w(id)) w
                              CROSS JOIN LATERAL (
                                  SELECT e.id FROM webhook_endpoints e
                                   WHERE e.workspace_id = w.id AND e.enabled AND e.deleted_at IS NULL
                                     AND e.events && '{message.created,note.created}'::text[]
                                  OFFSET 0) h)
                  FROM (SELECT DISTINCT u.id FROM unnest(p_session_ids) AS u(id)) k
                 CROSS JOIN LATERAL (SELECT s.id, s.version FROM chat_sessions s WHERE s.id = k.id LIMIT 1) s;
                v_webhook_events := cardinality(p_session_ids);

            """,
        count: 2, in: Migration0020.appendFunction)
}
