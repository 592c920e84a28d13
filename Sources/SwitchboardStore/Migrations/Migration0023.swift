/// Deliveries handed to the dispatcher of the node that makes them, leased
/// at birth, instead of written due and claimed back (docs/webhooks.md,
/// "Delivery"; docs/benchmarks.md, "Webhooks").
///
/// Until now the expander ran a statement per backlog row (a writer's batch:
/// two or three messages under a chat load of many sessions), 2.4 ms each (wall clock) in
/// `bench-webhooks`' steady run, and wrote each delivery due at once, for a
/// dispatcher thread to find it again with a claim: an index scan of the due
/// deliveries, a row lock, an update (the lease), and the event's body read
/// back (`pg_stat_statements`, stop 46: 106 us of PostgreSQL's time per
/// delivery, against 29 us for recording the outcome). Yet the node that
/// makes a delivery has a dispatcher with room most of the time.
///
/// - `switchboard_webhook_expand(p_budget, p_handoff, p_lease_seconds)`: one
///   pass as migration 21's (whose one-argument function stays, for its
///   `down`; `webhooks.hand_off = false` calls this one with `p_handoff` 0),
///   in one statement for all its backlog rows
///   (`switchboard_webhook_batch_deliveries`) instead of one per row, and up to
///   `p_handoff` of the deliveries it writes are born leased to the caller
///   for `p_lease_seconds` (`attempts` 1, `leased_until` and `next_attempt_at`
///   at the lease's end) and come back as rows, with what a claim returns;
///   the rest are due now, for any node's claim, and only they notify the
///   dispatchers. A row whose `delivery_id` is NULL carries the pass's counts
///   instead (`due`: the deliveries left due), once, last.
/// - At least once, as before: a caller that dies before recording an
///   attempt leaves its deliveries to come due when the lease ends, and a
///   claim anywhere sends them. Claims never see a handed-off delivery
///   earlier (its `next_attempt_at` is in the future, so the due index's
///   range scan stops before it), and an admin's retry of one in flight
///   keeps its lease, as for a claimed one.
/// - `switchboard_webhook_claim(p_limit, p_lease_seconds, p_busy)`: the
///   claim `PostgresDeliveryQueue` sent as a statement, now planned so that
///   it reads the due index in order and stops after `p_limit` rows whatever
///   the statistics say. With statistics taken before a backlog built up
///   (the table's are, after an outage or under a load the dispatcher cannot
///   keep up with), the planner estimated a few due rows and chose to fetch
///   them all by bitmap and sort them, through a join from the endpoints: a
///   claim of 32 read all 17,104 due deliveries (9-11 ms on the development
///   database, O(backlog): the drain of a large outbox slowed as it grew).
///   Bitmap scans are off for the function, and the endpoint check is a
///   subquery per row rather than a join: 1.0-2.3 ms for 32 on the same
///   data, 4.5 ms for 256.
enum Migration0023 {
    static let migration = Migration(version: 23, name: "webhook_deliveries_handed_off", sql: sql, down: down)

    private static let sql = batchFunction + "\n\n" + expandFunction + "\n\n" + claimFunction + "\n"

    private static let down =
        """
        DROP FUNCTION switchboard_webhook_claim(int, int, uuid[]);
        DROP FUNCTION switchboard_webhook_expand(int, int, int);
        DROP FUNCTION switchboard_webhook_batch_deliveries(bigint[], int, timestamptz);

        """

    /// The events and deliveries of the messages of backlog rows `p_ids`,
    /// as migration 21's `switchboard_webhook_batch_events` writes them for
    /// one row, in one statement for all of them; the first `p_handoff`
    /// deliveries leased until `p_lease_end` and returned (the endpoint's URL
    /// and secrets with them), the rows deleted, and the counts in one more
    /// row. One statement per pass, not one per row: at 1,000 msg/s over 500
    /// sessions a batch holds two or three messages, and the per-statement
    /// cost of a row was most of the expander's time (docs/writer.md).
    static let batchFunction = #"""
        CREATE FUNCTION switchboard_webhook_batch_deliveries(
            p_ids bigint[], p_handoff int, p_lease_end timestamptz)
        RETURNS TABLE (messages int, events int, due int, delivery_id bigint, event_id text, endpoint_id uuid,
                       url text, secret text, previous_secret text, body text, created_at float8)
        LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
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
                SELECT row_number() OVER (ORDER BY c.id) AS ord, c.*, b.versions AS batch_versions,
                       b.endpoints AS batch_endpoints,
                       CASE WHEN c.kind = 'note' THEN 'note.created' ELSE 'message.created' END AS type
                  FROM backlog b
                 -- OFFSET 0: each row's range read by the key, not one scan of chats joined to every range.
                 CROSS JOIN LATERAL (SELECT * FROM chats m WHERE m.id > b.after_id AND m.id <= b.last_id OFFSET 0) c
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
                       switchboard_webhook_time(s.created_at) AS time
                  FROM stored s
                 WHERE s.kind <> 'event'
                   AND EXISTS (SELECT 1 FROM hooks h
                                WHERE h.id = ANY (s.batch_endpoints) AND h.workspace_id = s.workspace_id
                                  AND s.type = ANY (h.events))
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
                                  coalesce(w.batch_versions ->> w.session_id::text, 'null'), '}}')),
                       w.created_at
                  FROM wanted w
                RETURNING webhook_events.id, webhook_events.body
            ),
            targets AS (
                -- An endpoint disabled since the batch gets its deliveries, held (due) until it is
                -- enabled again, as claims skip it: none is handed over.
                SELECT w.event_id, w.workspace_id, ev.body, w.created_at, h.id AS endpoint_id, h.url, h.secret,
                       h.previous_secret,
                       h.enabled AND count(*) FILTER (WHERE h.enabled)
                                         OVER (ORDER BY w.event_id, h.id) <= p_handoff AS handed
                  FROM written ev
                  JOIN wanted w ON w.event_id = ev.id
                  JOIN hooks h ON h.id = ANY (w.batch_endpoints) AND h.workspace_id = w.workspace_id
                              AND w.type = ANY (h.events)
            ),
            deliveries AS (
                INSERT INTO webhook_deliveries (workspace_id, event_id, endpoint_id, next_attempt_at, leased_until,
                                                attempts)
                SELECT t.workspace_id, t.event_id, t.endpoint_id, CASE WHEN t.handed THEN p_lease_end ELSE now() END,
                       CASE WHEN t.handed THEN p_lease_end END, CASE WHEN t.handed THEN 1 ELSE 0 END
                  FROM targets t
                RETURNING webhook_deliveries.id, webhook_deliveries.event_id, webhook_deliveries.endpoint_id,
                          webhook_deliveries.attempts
            ),
            gone AS (
                DELETE FROM webhook_backlog b WHERE b.id = ANY (p_ids)
            )
            SELECT NULL::int, NULL::int, NULL::int, d.id, d.event_id, d.endpoint_id, t.url, t.secret, t.previous_secret,
                   t.body, extract(epoch FROM t.created_at)::float8
              FROM deliveries d JOIN targets t ON t.event_id = d.event_id AND t.endpoint_id = d.endpoint_id
             WHERE d.attempts = 1
            UNION ALL
            SELECT (SELECT count(*) FROM stored)::int, (SELECT count(*) FROM written)::int,
                   (SELECT count(*) FROM deliveries WHERE attempts = 0)::int, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                   NULL;
        END;
        $$;
        """#

    /// Migration 21's pass in one statement: the oldest backlog rows no
    /// other node holds, whole, until `p_budget` messages (at least one row;
    /// a row's message count is the width of its id range, an upper bound:
    /// duplicates and refused sends have no row), handing off up to
    /// `p_handoff` deliveries.
    static let expandFunction = #"""
        CREATE FUNCTION switchboard_webhook_expand(p_budget int, p_handoff int, p_lease_seconds int)
        RETURNS TABLE (ranges int, messages int, events int, due int, more boolean, delivery_id bigint, event_id text,
                       endpoint_id uuid, url text, secret text, previous_secret text, body text, created_at float8)
        LANGUAGE plpgsql AS $$
        #variable_conflict use_column
        DECLARE
            x record;
            v_ids bigint[];
            v_locked int;
            v_messages int := 0;
            v_events int := 0;
            v_due int := 0;
        BEGIN
            -- Each row's width: the tails (the last 12 hex digits) of its ids, one run of one writer's prefix.
            SELECT array_agg(k.id ORDER BY k.id) FILTER (WHERE k.before < greatest(p_budget, 1)), count(*)
              INTO v_ids, v_locked
              FROM (SELECT t.id, sum(t.width) OVER (ORDER BY t.id) - t.width AS before
                      FROM (SELECT b.id,
                                   ('x' || right(b.last_id::text, 12))::bit(48)::bigint
                                   - ('x' || right(b.after_id::text, 12))::bit(48)::bigint AS width
                              FROM webhook_backlog b
                             ORDER BY b.id
                             LIMIT greatest(p_budget, 1) + 1
                               FOR UPDATE SKIP LOCKED) t) k;
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
            more := v_locked > ranges;
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

    /// The claim (`PostgresDeliveryQueue.claim`): up to `p_limit` due
    /// deliveries (pending, due, not leased, of an enabled live endpoint not
    /// in `p_busy`), oldest due first, leased for `p_lease_seconds`; rows
    /// another claim holds are skipped. `attempts` counts this one; the
    /// claimer gets the count before it.
    static let claimFunction = #"""
        CREATE FUNCTION switchboard_webhook_claim(p_limit int, p_lease_seconds int, p_busy uuid[])
        RETURNS TABLE (id text, event_id text, endpoint_id text, url text, secret text, previous_secret text,
                       body text, attempt int, created_at float8)
        LANGUAGE plpgsql SET enable_bitmapscan = off AS $$
        #variable_conflict use_column
        BEGIN
            RETURN QUERY
            WITH due AS (
                SELECT d.endpoint_id, d.id FROM webhook_deliveries d
                 WHERE d.status = 'pending' AND d.next_attempt_at <= now()
                   AND (d.leased_until IS NULL OR d.leased_until < now())
                   AND d.endpoint_id <> ALL (p_busy)
                   AND (SELECT e.enabled AND e.deleted_at IS NULL FROM webhook_endpoints e WHERE e.id = d.endpoint_id)
                 ORDER BY d.next_attempt_at
                 LIMIT p_limit
                 FOR UPDATE OF d SKIP LOCKED
            )
            UPDATE webhook_deliveries d
               SET leased_until = now() + p_lease_seconds * interval '1 second', attempts = d.attempts + 1,
                   updated_at = now()
              FROM due, webhook_events ev, webhook_endpoints e
             WHERE d.endpoint_id = due.endpoint_id AND d.id = due.id AND ev.id = d.event_id AND e.id = d.endpoint_id
            RETURNING d.id::text, d.event_id, d.endpoint_id::text, e.url, e.secret,
                      CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret END,
                      ev.body, d.attempts - 1, extract(epoch FROM ev.created_at)::float8;
        END;
        $$;
        """#
}
