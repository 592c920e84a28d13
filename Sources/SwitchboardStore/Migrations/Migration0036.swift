/// The expander's pass carries each message's wide columns through its
/// statement once (docs/webhooks.md, "A pass's rows kept narrow"; issue 34).
///
/// `switchboard_webhook_batch_deliveries` built a pass's events through CTEs
/// that held whole rows: it hashed every message's row (all of its columns)
/// to join it to its batch's session versions, then hashed every event's
/// body for the join with the caller's held counts and sorted it twice in
/// the windows that decide what is handed over (1.5 MB each for 2,000
/// messages). The backend's time went to copying those rows into hash
/// tables and sort memory, and to the kernel's page faults for that memory,
/// fresh in every pass (`perf` over a capacity drain: 40% of the expander's
/// samples under hash builds, their inputs included; 14% in page faults).
///
/// Now:
/// - the backlog row's `versions` is read out of line once per row (`||
///   '{}'`, which returns the value itself) and each message looks up its
///   session's version inside the per-row scan of `chats`, before the sort
///   that numbers the events: the rows carry a short text, and the versions
///   CTE and its hash join are gone (looked up after the sort instead, the
///   batch's whole jsonb rode through it with every message: 3.9 MB sorted
///   for 1,048 messages);
/// - the event's id and its time are spelled once per message, beside its
///   place;
/// - what each endpoint has room for, and what is handed over, is decided
///   over narrow rows (the event's place, id and endpoint); each endpoint's
///   held count is looked up once per endpoint, not joined per delivery;
/// - the handed-over rows take their body from the events CTE and their URL
///   and secrets from the endpoints CTE at the end: one join of bodies, whose
///   hash table holds either what is handed over (at most the dispatcher's
///   room) or the pass's bodies, as the plan's estimates have it.
///
/// The same rows are written and returned, in the same order, with the same
/// bodies: compared row for row with migration 34's function on a copy of a
/// 240,000-message database (and every outbox test passes);
/// `ExpansionPlanTests` holds the narrow sorts and hashes. Measured with the
/// function alone, one backend, passes of 1,048 messages over 32 backlog
/// rows to three endpoints, each rolled back: 25.4-27.5 ms a pass before,
/// 19.3-20.7 after (2026-11-29).
///
/// The function is replaced with its signature and settings: online. Down
/// restores migration 34's. Written out whole rather than as edits of
/// migration 28's text (`SQLText`): it changes most of the statement.
enum Migration0036 {
    static let migration = Migration(version: 36, name: "webhook_expansion_narrow_rows", sql: sql, down: down)

    static let sql = #"""
        CREATE OR REPLACE FUNCTION switchboard_webhook_batch_deliveries(
            p_ids bigint[], p_handoff int, p_lease_end timestamptz, p_per_endpoint int, p_held_endpoints uuid[],
            p_held_counts int[])
        RETURNS TABLE (messages int, events int, due int, delivery_id bigint, event_id text, endpoint_id uuid,
                       url text, secret text, previous_secret text, body text, created_at float8)
        LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT SET enable_seqscan = off
        \#(Migration0034.settings) AS $$
        #variable_conflict use_column
        DECLARE
            v_prefix text := switchboard_webhook_id_prefix();
        BEGIN
            RETURN QUERY
            WITH backlog AS MATERIALIZED (
                -- `|| '{}'` returns the jsonb read out of line (a batch of 500 sessions: 18 kB), once
                -- per row, so that each message's lookup below searches it in memory.
                SELECT b.id, b.after_id, b.last_id, b.versions || '{}'::jsonb AS versions, b.endpoints
                  FROM webhook_backlog b
                 WHERE b.id = ANY (p_ids)
            ),
            -- Each message with what its event needs, numbered in id order. The session's version
            -- and the time are taken inside the per-row scan, so that the sort carries them, not
            -- the batch's jsonb.
            stored AS MATERIALIZED (
                SELECT row_number() OVER (ORDER BY c.id) AS ord,
                       v_prefix || switchboard_base32_4(row_number() OVER (ORDER BY c.id)) AS event_id,
                       c.id, c.workspace_id, c.user_id, c.role, c.content, c.created_at, c.time, c.session_id,
                       c.seq, c.client_msg_id, c.sender_id, c.sender_name, c.kind, c.attachments,
                       c.batch_version, b.endpoints AS batch_endpoints,
                       CASE WHEN c.kind = 'note' THEN 'note.created' ELSE 'message.created' END AS type
                  FROM backlog b
                 -- OFFSET 0: each row's range read by the key, not one scan of chats joined to every range.
                 CROSS JOIN LATERAL (
                     SELECT m.*, b.versions ->> m.session_id::text AS batch_version,
                            switchboard_webhook_time(m.created_at) AS time
                       FROM chats m
                      WHERE m.id > b.after_id AND m.id <= b.last_id
                     OFFSET 0) c
            ),
            -- Each endpoint by its key (LIMIT 1 keeps the planner from scanning them all), with
            -- what the caller holds of it.
            hooks AS MATERIALIZED (
                SELECT h.*,
                       coalesce((SELECT sum(held.count) FROM unnest(p_held_endpoints, p_held_counts)
                                                          AS held(endpoint_id, count)
                                  WHERE held.endpoint_id = h.id), 0) AS held
                  FROM (SELECT DISTINCT x.id FROM backlog b CROSS JOIN unnest(b.endpoints) AS x(id)) x
                 CROSS JOIN LATERAL (
                     SELECT e.id, e.workspace_id, e.events, e.url, e.secret, e.enabled,
                            CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret END
                                AS previous_secret
                       FROM webhook_endpoints e
                      WHERE e.id = x.id AND coalesce(e.deleted_at, 'infinity') = 'infinity'
                        AND e.events && '{message.created,note.created}'::text[]
                      LIMIT 1) h
            ),
            -- Each event's body, built once: the event's row and the deliveries handed over carry it.
            events AS MATERIALIZED (
                SELECT s.ord, s.event_id, s.workspace_id, s.type, s.created_at, s.batch_endpoints,
                       switchboard_webhook_body(
                           s.event_id, s.type, s.time, s.workspace_id,
                           concat('{"message":',
                                  switchboard_webhook_message(
                                      s.session_id, s.seq, s.id, s.client_msg_id, s.kind, s.content,
                                      coalesce(s.sender_id, s.user_id::text), s.role, s.sender_name, s.time,
                                      s.attachments),
                                  ',"session":{"id":"', s.session_id, '","version":',
                                  coalesce(s.batch_version, 'null'), '}}')) AS body
                  FROM stored s
                 WHERE s.kind <> 'event'
                   AND EXISTS (SELECT 1 FROM hooks h
                                WHERE h.id = ANY (s.batch_endpoints) AND h.workspace_id = s.workspace_id
                                  AND s.type = ANY (h.events))
            ),
            written AS (
                INSERT INTO webhook_events (id, workspace_id, type, body, created_at)
                SELECT e.event_id, e.workspace_id, e.type, e.body, e.created_at FROM events e
                RETURNING webhook_events.id
            ),
            -- Which deliveries each endpoint has room for: its share less what it holds already, in
            -- event order. An endpoint disabled since the batch gets its deliveries, held (due) until
            -- it is enabled again, as claims skip it: none is handed over. Narrow rows: no body.
            pairs AS MATERIALIZED (
                SELECT e.ord, e.event_id, e.workspace_id, e.created_at, h.id AS endpoint_id,
                       h.enabled AND row_number() OVER (PARTITION BY h.id ORDER BY e.ord)
                                     <= p_per_endpoint - h.held AS fits
                  FROM events e
                  JOIN hooks h ON h.id = ANY (e.batch_endpoints) AND h.workspace_id = e.workspace_id
                              AND e.type = ANY (h.events)
            ),
            -- Each delivery's id taken here, so that what is handed over is read from this CTE: no
            -- join of what the inserts return to what they were given.
            targets AS MATERIALIZED (
                SELECT nextval('webhook_deliveries_id_seq') AS delivery_id, p.ord, p.event_id, p.workspace_id,
                       p.created_at, p.endpoint_id,
                       p.fits AND count(*) FILTER (WHERE p.fits) OVER (ORDER BY p.ord, p.endpoint_id)
                                  <= p_handoff AS handed
                  FROM pairs p
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
            -- The bodies joined once, to what is handed over; sorted as targets were.
            (SELECT NULL::int, NULL::int, NULL::int, t.delivery_id, t.event_id, t.endpoint_id, h.url, h.secret,
                    h.previous_secret, e.body, extract(epoch FROM t.created_at)::float8
               FROM targets t
               JOIN events e ON e.ord = t.ord
               JOIN hooks h ON h.id = t.endpoint_id
              WHERE t.handed
              ORDER BY t.ord, t.endpoint_id)
            UNION ALL
            SELECT (SELECT count(*) FROM stored)::int, (SELECT count(*) FROM written)::int,
                   (SELECT count(*) FROM targets WHERE NOT handed)::int, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                   NULL;
        END;
        $$;
        """#

    private static let down = Migration0034.migration.sql
}
