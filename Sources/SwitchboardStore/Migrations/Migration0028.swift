/// The expander's budget ends inside a writer's batch, not after it
/// (docs/webhooks.md, "Handed over, not claimed"; issue 34).
///
/// Migration 23's pass took backlog rows whole until its budget of messages
/// was spent, at least one. Under a load the machine cannot store faster, a
/// writer's batch holds hundreds of messages, so a pass that could hand its
/// dispatcher 70 deliveries (the room it had) still wrote several hundred,
/// and left the rest due for a claim to find again: in a capacity drain,
/// 211,681 of 229,883 deliveries were claimed (`pg_stat_statements`), at
/// about 25 us of PostgreSQL's time each, a third of the dispatcher's.
///
/// - `switchboard_webhook_expand(p_budget, p_handoff, p_lease_seconds)`:
///   as migration 23's, except that when the budget ends inside a row, the
///   row's first messages (as many as fit) become a backlog row of their own,
///   expanded in this pass, and the row keeps the rest (its `after_id`
///   moved past them) in its place in line, with the same versions,
///   endpoints and commit time. `more` is then true. The messages of a
///   batch are one run of ids, so "its first n" is the run's first n ids
///   (an upper bound on the messages, as the width always was: duplicates and
///   refused sends have no row). Split or not, each message is expanded once:
///   the part taken and the part left are disjoint ranges, written in one
///   transaction.
/// - The gateway asks for no more messages than its dispatcher has room for
///   (`WebhookExpander`; after waiting 50 ms for room, its whole budget), so
///   that a drain hands nearly every delivery over instead of writing it due.
///
/// - `switchboard_webhook_batch_deliveries`: each session's version is read
///   out of the backlog row's `versions` once per row, not once per message.
///   A batch of a load over 500 sessions carries an 18 kB jsonb, stored out
///   of line and not compressible (random keys): each message's lookup
///   fetched and assembled all of it again, about 24 us a message on the
///   development database, a large part of the expander's CPU in a drain.
///
/// - Both functions plan without sequential scans (`enable_seqscan = off`
///   for their statements). PL/pgSQL keeps a generic plan after five
///   passes; made while `chats` was small and analyzed (a new deployment, a
///   bench's first seconds), it read each backlog row's range by scanning
///   all of `chats`, and kept doing so as the table grew: in a 2,000 msg/s
///   run on a new database (`auto_explain`, migration 23's function), a
///   pass of 667 ranges scanned 27,000 messages for each and took 2.1 s,
///   and the outbox grew. Likewise the backlog itself was read
///   whole and sorted for each pass. `WebhookLookupTests` now holds the
///   expansion to generic plans made on analyzed small tables.
///
/// Only functions change: online. Down restores migration 23's.
enum Migration0028 {
    static let migration = Migration(version: 28, name: "webhook_expansion_splits_a_batch", sql: sql, down: down)

    private static let sql = batchFunction + "\n" + expandFunction

    /// Migration 23's, with each session's version read out of the backlog
    /// row's jsonb once per row instead of once per message.
    static let batchFunction = #"""
        CREATE OR REPLACE FUNCTION switchboard_webhook_batch_deliveries(
            p_ids bigint[], p_handoff int, p_lease_end timestamptz)
        RETURNS TABLE (messages int, events int, due int, delivery_id bigint, event_id text, endpoint_id uuid,
                       url text, secret text, previous_secret text, body text, created_at float8)
        LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT SET enable_seqscan = off AS $$
        #variable_conflict use_column
        DECLARE
            v_prefix text := switchboard_webhook_id_prefix();
        BEGIN
            RETURN QUERY
            WITH backlog AS MATERIALIZED (
                SELECT b.id, b.after_id, b.last_id, b.versions, b.endpoints FROM webhook_backlog b
                 WHERE b.id = ANY (p_ids)
            ),
            stored AS MATERIALIZED (
                SELECT row_number() OVER (ORDER BY c.id) AS ord, c.*, b.id AS backlog_id,
                       b.endpoints AS batch_endpoints,
                       CASE WHEN c.kind = 'note' THEN 'note.created' ELSE 'message.created' END AS type
                  FROM backlog b
                 -- OFFSET 0: each row's range read by the key, not one scan of chats joined to every range.
                 CROSS JOIN LATERAL (SELECT * FROM chats m WHERE m.id > b.after_id AND m.id <= b.last_id OFFSET 0) c
            ),
            -- Each session's version after its batch, read out of the row's jsonb once: looked up per
            -- message, a batch's jsonb (500 sessions: 18 kB, stored out of line) was fetched and
            -- assembled again for each one, about 24 us.
            versions AS MATERIALIZED (
                SELECT b.id AS backlog_id, v.key::uuid AS session_id, v.value AS version
                  FROM backlog b CROSS JOIN LATERAL jsonb_each_text(b.versions) AS v(key, value)
            ),
            -- Each endpoint by its key (LIMIT 1 keeps the planner from scanning them all).
            hooks AS MATERIALIZED (
                SELECT h.* FROM (SELECT DISTINCT x.id FROM backlog b CROSS JOIN unnest(b.endpoints) AS x(id)) x
                 CROSS JOIN LATERAL (
                     SELECT e.id, e.workspace_id, e.events, e.url, e.secret, e.enabled,
                            CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret END
                                AS previous_secret
                       FROM webhook_endpoints e
                      WHERE e.id = x.id AND e.deleted_at IS NULL
                        AND e.events && '{message.created,note.created}'::text[]
                      LIMIT 1) h
            ),
            wanted AS MATERIALIZED (
                SELECT s.*, v_prefix || switchboard_base32_4(s.ord) AS event_id,
                       switchboard_webhook_time(s.created_at) AS time, v.version AS batch_version
                  FROM stored s
                  LEFT JOIN versions v ON v.backlog_id = s.backlog_id AND v.session_id = s.session_id
                 WHERE s.kind <> 'event'
                   AND EXISTS (SELECT 1 FROM hooks h
                                WHERE h.id = ANY (s.batch_endpoints) AND h.workspace_id = s.workspace_id
                                  AND s.type = ANY (h.events))
            ),
            -- Each event's body, built once: the event's row and the deliveries handed over carry it.
            events AS MATERIALIZED (
                SELECT w.event_id, w.workspace_id, w.type, w.created_at, w.batch_endpoints,
                       switchboard_webhook_body(
                           w.event_id, w.type, w.time, w.workspace_id,
                           concat('{"message":',
                                  switchboard_webhook_message(
                                      w.session_id, w.seq, w.id, w.client_msg_id, w.kind, w.content,
                                      coalesce(w.sender_id, w.user_id::text), w.role, w.sender_name, w.time,
                                      w.attachments),
                                  ',"session":{"id":"', w.session_id, '","version":',
                                  coalesce(w.batch_version, 'null'), '}}')) AS body
                  FROM wanted w
            ),
            written AS (
                INSERT INTO webhook_events (id, workspace_id, type, body, created_at)
                SELECT e.event_id, e.workspace_id, e.type, e.body, e.created_at FROM events e
                RETURNING webhook_events.id
            ),
            -- Each delivery's id taken here, so that what is handed over is read from this CTE: no
            -- join of what the inserts return to what they were given (CTE scans, whose sizes the
            -- planner cannot know: it joined them by nested loops, quadratic in the pass's size).
            targets AS MATERIALIZED (
                -- An endpoint disabled since the batch gets its deliveries, held (due) until it is
                -- enabled again, as claims skip it: none is handed over.
                SELECT nextval('webhook_deliveries_id_seq') AS delivery_id, e.event_id, e.workspace_id, e.body,
                       e.created_at, h.id AS endpoint_id, h.url, h.secret, h.previous_secret,
                       h.enabled AND count(*) FILTER (WHERE h.enabled)
                                         OVER (ORDER BY e.event_id, h.id) <= p_handoff AS handed
                  FROM events e
                  JOIN hooks h ON h.id = ANY (e.batch_endpoints) AND h.workspace_id = e.workspace_id
                              AND e.type = ANY (h.events)
            ),
            deliveries AS (
                INSERT INTO webhook_deliveries (id, workspace_id, event_id, endpoint_id, next_attempt_at,
                                                leased_until, attempts)
                -- The identity's own sequence, drawn in targets.
                OVERRIDING SYSTEM VALUE
                SELECT t.delivery_id, t.workspace_id, t.event_id, t.endpoint_id,
                       CASE WHEN t.handed THEN p_lease_end ELSE now() END, CASE WHEN t.handed THEN p_lease_end END,
                       CASE WHEN t.handed THEN 1 ELSE 0 END
                  FROM targets t
                RETURNING webhook_deliveries.id
            ),
            gone AS (
                DELETE FROM webhook_backlog b WHERE b.id = ANY (p_ids)
            )
            SELECT NULL::int, NULL::int, NULL::int, t.delivery_id, t.event_id, t.endpoint_id, t.url, t.secret,
                   t.previous_secret, t.body, extract(epoch FROM t.created_at)::float8
              FROM targets t
             WHERE t.handed
            UNION ALL
            SELECT (SELECT count(*) FROM stored)::int, (SELECT count(*) FROM written)::int,
                   (SELECT count(*) FROM targets WHERE NOT handed)::int, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                   NULL;
        END;
        $$;
        """#

    static let expandFunction = #"""
        CREATE OR REPLACE FUNCTION switchboard_webhook_expand(p_budget int, p_handoff int, p_lease_seconds int)
        RETURNS TABLE (ranges int, messages int, events int, due int, more boolean, delivery_id bigint, event_id text,
                       endpoint_id uuid, url text, secret text, previous_secret text, body text, created_at float8)
        LANGUAGE plpgsql SET enable_seqscan = off AS $$
        #variable_conflict use_column
        DECLARE
            x record;
            v_budget int := greatest(p_budget, 1);
            v_ids bigint[];
            v_locked int;
            v_split bigint;
            v_take bigint;
            v_head bigint;
            v_messages int := 0;
            v_events int := 0;
            v_due int := 0;
        BEGIN
            -- Each row's width: the tails (the last 12 hex digits) of its ids, one run of one writer's prefix.
            SELECT array_agg(k.id ORDER BY k.id) FILTER (WHERE k.before < v_budget), count(*),
                   max(k.id) FILTER (WHERE k.before < v_budget AND k.before + k.width > v_budget),
                   max(v_budget - k.before) FILTER (WHERE k.before < v_budget AND k.before + k.width > v_budget)
              INTO v_ids, v_locked, v_split, v_take
              FROM (SELECT t.id, t.width, sum(t.width) OVER (ORDER BY t.id) - t.width AS before
                      FROM (SELECT b.id,
                                   ('x' || right(b.last_id::text, 12))::bit(48)::bigint
                                   - ('x' || right(b.after_id::text, 12))::bit(48)::bigint AS width
                              FROM webhook_backlog b
                             ORDER BY b.id
                             LIMIT v_budget + 1
                               FOR UPDATE SKIP LOCKED) t) k;
            IF v_split IS NOT NULL THEN
                -- The budget ends inside this batch: its first v_take ids become a row taken now, and the
                -- row keeps the rest, in its place in line.
                INSERT INTO webhook_backlog (after_id, last_id, versions, endpoints, committed_at)
                SELECT b.after_id,
                       (left(b.after_id::text, 24)
                        || lpad(to_hex(('x' || right(b.after_id::text, 12))::bit(48)::bigint + v_take), 12, '0'))::uuid,
                       b.versions, b.endpoints, b.committed_at
                  FROM webhook_backlog b WHERE b.id = v_split
                RETURNING id INTO v_head;
                UPDATE webhook_backlog b
                   SET after_id = (left(b.after_id::text, 24)
                                   || lpad(to_hex(('x' || right(b.after_id::text, 12))::bit(48)::bigint + v_take),
                                           12, '0'))::uuid
                 WHERE b.id = v_split;
                v_ids := array_replace(v_ids, v_split, v_head);
            END IF;
            IF cardinality(v_ids) > 0 THEN
                FOR x IN SELECT * FROM switchboard_webhook_batch_deliveries(
                             v_ids, greatest(p_handoff, 0), now() + p_lease_seconds * interval '1 second') LOOP
                    IF x.delivery_id IS NULL THEN
                        v_messages := x.messages;
                        v_events := x.events;
                        v_due := x.due;
                    ELSE
                        delivery_id := x.delivery_id;
                        event_id := x.event_id;
                        endpoint_id := x.endpoint_id;
                        url := x.url;
                        secret := x.secret;
                        previous_secret := x.previous_secret;
                        body := x.body;
                        created_at := x.created_at;
                        RETURN NEXT;
                    END IF;
                END LOOP;
            END IF;
            ranges := coalesce(cardinality(v_ids), 0);
            messages := v_messages;
            events := v_events;
            due := v_due;
            more := v_locked > ranges OR v_split IS NOT NULL;
            -- Only deliveries left due are work for the dispatchers (of every node).
            IF v_due > 0 THEN
                PERFORM pg_notify('switchboard_webhooks', '');
            END IF;
            delivery_id := NULL;
            event_id := NULL;
            endpoint_id := NULL;
            url := NULL;
            secret := NULL;
            previous_secret := NULL;
            body := NULL;
            created_at := NULL;
            RETURN NEXT;
        END;
        $$;

        """#

    private static let down =
        """
        DROP FUNCTION switchboard_webhook_expand(int, int, int);
        DROP FUNCTION switchboard_webhook_batch_deliveries(bigint[], int, timestamptz);
        \(Migration0023.batchFunction)

        \(Migration0023.expandFunction)

        """
}
