/// `switchboard_append_messages` as in migration 5, with its sessions found
/// by key whatever the table's statistics say.
///
/// Version 5 locked the batch's sessions with `id = ANY (ids) AND deleted_at
/// IS NULL`. The writer runs generic plans, and on a table not yet analyzed
/// (a fresh deployment, or sessions created since the last ANALYZE) the
/// planner took the partial index of live sessions as nearly empty: each batch
/// read every session in it and compared each with every id of the batch
/// (3,015 rows read for a 5-session batch over 3,000 sessions; loadtest
/// `conversations` at 20,000 messages/s over 1,000 new sessions: PostgreSQL
/// 0.83 cores, 0.73 with this version). Now both paths look each distinct
/// session up by its key, a lateral join whose cheap plan is one index probe
/// per session, still in id order.
///
/// The fast path also takes those locks inside its subtransaction. Version 5
/// locked in the function's transaction and updated in the subtransaction, and
/// a row locked by a transaction and updated by its subtransaction gets a
/// multixact as its xmax: one per session and batch, which every later lock
/// of the row must look up (pgbench, one-message batches into one session:
/// 1.5% of the backend's time on a clean table, 34-45% where unpruned row
/// versions had piled up) and vacuum must eventually freeze. When the
/// subtransaction fails on a duplicate, its locks go with it and the general
/// path locks again. Results and semantics are unchanged (see Migration0005).
enum Migration0006 {
    static let migration = Migration(
        version: 6, name: "append_messages_by_key",
        sql: #"""
            CREATE OR REPLACE FUNCTION switchboard_append_messages(
                p_session_ids uuid[], p_client_msg_ids text[], p_sender_roles text[], p_sender_ids text[],
                p_sender_names text[], p_kinds text[], p_bodies text[])
            RETURNS TABLE (
                ord bigint, status text, id uuid, seq bigint, created_at timestamptz,
                sender_role text, sender_id text, sender_name text, kind text, body text)
            LANGUAGE plpgsql AS $$
            DECLARE
                v_sessions int;
                v_live int;
                v_random text;
                v_prefix text;
                v_tail bigint;
            BEGIN
                -- Time-ordered ids (the UUID version 7 layout: 48-bit Unix milliseconds, then
                -- random bits; within the batch the low bits count up): new rows go to the
                -- right edge of chats_pkey instead of random leaves.
                v_random := replace(gen_random_uuid()::text, '-', '');
                v_prefix := lpad(to_hex((extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0')
                            || '7' || substr(v_random, 1, 3) || substr(v_random, 17, 4);
                v_tail := ('x' || substr(v_random, 21, 12))::bit(48)::bigint & 140737488355327;

                -- The fast path, in a subtransaction that also takes the session locks: one
                -- that updated rows its parent had locked would make a multixact of every
                -- such row, which each later lock of the row must look up (45% of a
                -- backend storing one-message batches into one busy session).
                BEGIN
                    -- One key lookup per distinct session, in id order (so two writers never
                    -- deadlock). Not `id = ANY (...)` with `deleted_at IS NULL`: on a table
                    -- without statistics the generic plan scanned the whole partial index of
                    -- live sessions and compared each entry with every id of the batch.
                    SELECT count(*) FILTER (WHERE l.live), count(*) INTO v_live, v_sessions
                      FROM (SELECT DISTINCT u.id FROM unnest(p_session_ids) AS u(id) ORDER BY u.id) k
                      LEFT JOIN LATERAL (
                          SELECT s.deleted_at IS NULL AS live FROM chat_sessions s
                           WHERE s.id = k.id FOR UPDATE) l ON true;
                    IF v_live = v_sessions THEN
                        RETURN QUERY
                        WITH input AS (
                            SELECT t.*, row_number() OVER (PARTITION BY t.session_id ORDER BY t.ord) AS n
                              FROM unnest(p_session_ids, p_client_msg_ids, p_sender_roles, p_sender_ids,
                                          p_sender_names, p_kinds, p_bodies)
                                   WITH ORDINALITY AS t(session_id, client_msg_id, sender_role, sender_id,
                                                        sender_name, kind, body, ord)
                        ),
                        counts AS (
                            SELECT i.session_id, count(*) AS added,
                                   bool_or(i.sender_role = 'visitor') AS has_visitor,
                                   bool_or(i.sender_role IN ('operator', 'admin')) AS has_operator
                              FROM input i GROUP BY i.session_id
                        ),
                        bumped AS (
                            UPDATE chat_sessions s
                               SET last_seq = s.last_seq + c.added,
                                   first_visitor_message_at = CASE
                                       WHEN s.first_visitor_message_at IS NULL AND c.has_visitor THEN now()
                                       ELSE s.first_visitor_message_at END,
                                   first_operator_reply_at = CASE
                                       WHEN s.first_operator_reply_at IS NULL AND c.has_operator
                                            AND (s.first_visitor_message_at IS NOT NULL OR c.has_visitor) THEN now()
                                       ELSE s.first_operator_reply_at END
                              FROM counts c
                             WHERE s.id = c.session_id
                            RETURNING s.id, s.workspace_id, s.last_seq - c.added AS base
                        ),
                        rows AS MATERIALIZED (
                            SELECT i.ord, (v_prefix || lpad(to_hex(v_tail + i.ord), 12, '0'))::uuid AS id,
                                   i.session_id, b.workspace_id, b.base + i.n AS seq, i.client_msg_id, i.sender_role, i.sender_id, i.sender_name, i.kind, i.body
                              FROM input i JOIN bumped b ON b.id = i.session_id
                        ),
                        inserted AS (
                            INSERT INTO chats (id, session_id, workspace_id, seq, client_msg_id, role, sender_id,
                                               sender_name, kind, content, created_at)
                            SELECT r.id, r.session_id, r.workspace_id, r.seq, r.client_msg_id, r.sender_role,
                                   r.sender_id, r.sender_name, r.kind, r.body, now()
                              FROM rows r
                            RETURNING chats.id
                        )
                        -- RETURN QUERY keeps rows as the query yields them, and an unreferenced
                        -- INSERT in WITH would run only after the last one: the count makes the
                        -- INSERT finish (or raise) before the first row is returned.
                        SELECT r.ord, 'stored'::text, r.id, r.seq, now(), NULL::text, NULL::text, NULL::text,
                               NULL::text, NULL::text
                          FROM rows r
                         WHERE (SELECT count(*) FROM inserted) > 0
                         ORDER BY r.ord;
                        RETURN;
                    END IF;
                EXCEPTION WHEN unique_violation THEN
                    -- A (session_id, client_msg_id) stored before or repeated in the batch:
                    -- everything the block did is undone, the locks too; the general path
                    -- below sorts it out.
                    NULL;
                END;

                -- The general path: a duplicate or a missing session somewhere in the batch.
                -- It locks the sessions again (a no-op when the block above ended without
                -- an error) and then runs on a snapshot taken after the locks.
                SELECT count(*) FILTER (WHERE l.live), count(*) INTO v_live, v_sessions
                  FROM (SELECT DISTINCT u.id FROM unnest(p_session_ids) AS u(id) ORDER BY u.id) k
                  LEFT JOIN LATERAL (
                      SELECT s.deleted_at IS NULL AS live FROM chat_sessions s
                       WHERE s.id = k.id FOR UPDATE) l ON true;

                RETURN QUERY
                WITH input AS (
                    SELECT t.* FROM unnest(p_session_ids, p_client_msg_ids, p_sender_roles, p_sender_ids,
                                           p_sender_names, p_kinds, p_bodies)
                        WITH ORDINALITY AS t(session_id, client_msg_id, sender_role, sender_id,
                                             sender_name, kind, body, ord)
                ),
                -- By key, as above (the LIMIT keeps deleted_at out of the lookup).
                live AS (
                    SELECT k.id, l.workspace_id
                      FROM (SELECT DISTINCT u.id FROM unnest(p_session_ids) AS u(id)) k
                     CROSS JOIN LATERAL (
                         SELECT s.workspace_id, s.deleted_at FROM chat_sessions s
                          WHERE s.id = k.id LIMIT 1) l
                     WHERE l.deleted_at IS NULL
                ),
                -- One unique-index probe per distinct key. (A plain join or IN lets the
                -- planner pick a hash join over a sequential scan of chats, whose
                -- statistics lag while the table grows: cost per batch grew with the
                -- table. The LIMIT keeps the lateral subquery from being flattened.)
                existing AS (
                    SELECT c.* FROM (SELECT DISTINCT i.session_id, i.client_msg_id FROM input i) k
                    CROSS JOIN LATERAL (
                        SELECT c.* FROM chats c
                         WHERE c.session_id = k.session_id AND c.client_msg_id = k.client_msg_id
                         LIMIT 1) c
                ),
                fresh AS (
                    SELECT DISTINCT ON (i.session_id, i.client_msg_id) i.*, l.workspace_id
                      FROM input i
                      JOIN live l ON l.id = i.session_id
                     WHERE NOT EXISTS (SELECT 1 FROM existing e
                                        WHERE e.session_id = i.session_id AND e.client_msg_id = i.client_msg_id)
                     ORDER BY i.session_id, i.client_msg_id, i.ord
                ),
                numbered AS (
                    SELECT f.*, row_number() OVER (PARTITION BY f.session_id ORDER BY f.ord) AS n FROM fresh f
                ),
                counts AS (
                    SELECT n.session_id,
                           max(n.n) AS added,
                           bool_or(n.sender_role = 'visitor') AS has_visitor,
                           bool_or(n.sender_role IN ('operator', 'admin')) AS has_operator
                      FROM numbered n GROUP BY n.session_id
                ),
                bumped AS (
                    UPDATE chat_sessions s
                       SET last_seq = s.last_seq + c.added,
                           first_visitor_message_at = CASE
                               WHEN s.first_visitor_message_at IS NULL AND c.has_visitor THEN now()
                               ELSE s.first_visitor_message_at END,
                           first_operator_reply_at = CASE
                               WHEN s.first_operator_reply_at IS NULL AND c.has_operator
                                    AND (s.first_visitor_message_at IS NOT NULL OR c.has_visitor) THEN now()
                               ELSE s.first_operator_reply_at END
                      FROM counts c
                     WHERE s.id = c.session_id
                    RETURNING s.id, s.last_seq - c.added AS base
                ),
                inserted AS (
                    INSERT INTO chats (session_id, workspace_id, seq, client_msg_id, role, sender_id,
                                       sender_name, kind, content)
                    SELECT n.session_id, n.workspace_id, b.base + n.n, n.client_msg_id, n.sender_role,
                           n.sender_id, n.sender_name, n.kind, n.body
                      FROM numbered n JOIN bumped b ON b.id = n.session_id
                    RETURNING chats.id, chats.session_id, chats.seq, chats.created_at, chats.client_msg_id
                )
                SELECT i.ord,
                       CASE WHEN l.id IS NULL THEN 'no_session'
                            WHEN e.id IS NOT NULL THEN 'duplicate'
                            WHEN n.ord = i.ord THEN 'stored'
                            ELSE 'duplicate' END,
                       COALESCE(e.id, ins.id), COALESCE(e.seq, ins.seq), COALESCE(e.created_at, ins.created_at),
                       -- The original of a duplicate: stored before (e), or earlier in the batch (n).
                       CASE WHEN e.id IS NOT NULL THEN e.role WHEN n.ord <> i.ord THEN n.sender_role END,
                       CASE WHEN e.id IS NOT NULL THEN e.sender_id WHEN n.ord <> i.ord THEN n.sender_id END,
                       CASE WHEN e.id IS NOT NULL THEN e.sender_name WHEN n.ord <> i.ord THEN n.sender_name END,
                       CASE WHEN e.id IS NOT NULL THEN e.kind WHEN n.ord <> i.ord THEN n.kind END,
                       CASE WHEN e.id IS NOT NULL THEN e.content WHEN n.ord <> i.ord THEN n.body END
                  FROM input i
                  LEFT JOIN live l ON l.id = i.session_id
                  LEFT JOIN existing e ON e.session_id = i.session_id AND e.client_msg_id = i.client_msg_id
                  LEFT JOIN numbered n ON n.session_id = i.session_id AND n.client_msg_id = i.client_msg_id
                  LEFT JOIN inserted ins ON ins.session_id = i.session_id AND ins.client_msg_id = i.client_msg_id
                 ORDER BY i.ord;
            END;
            $$;
            """#,
        // Down: the version 5 function again.
        down: #"""
            DROP FUNCTION IF EXISTS switchboard_append_messages(uuid[], text[], text[], text[], text[], text[], text[]);
            """# + Migration0005.migration.sql)
}
