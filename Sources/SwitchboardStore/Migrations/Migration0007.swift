/// Session versions: `chat_sessions.version` grows by one with every change
/// of a session (status, assignment, title, last message, deletion), so that
/// every `session.updated` can say which state it is and clients (and the
/// gateway) never apply an older state over a newer one.
///
/// Every statement that changes a session sets `version = version + 1`
/// itself: a trigger would cost the writer one more function call per
/// session and batch, on the path where PostgreSQL is already the
/// bottleneck. `SessionVersionTests` holds each path to it.
///
/// `switchboard_append_messages` bumps the version with `last_seq` and
/// returns, on the last stored row of each session in the batch, the
/// session's state after the batch (version, status, title, visitor,
/// assignment, times): the gateway builds that session's `session.updated`
/// from it, with no cached copy that could be stale and no second query.
/// Otherwise as version 6 (see Migration0006 for the locking and the paths).
enum Migration0007 {
    static let migration = Migration(
        version: 7, name: "session_versions",
        sql: #"""
            ALTER TABLE chat_sessions ADD COLUMN version bigint NOT NULL DEFAULT 1;

            DROP FUNCTION switchboard_append_messages(uuid[], text[], text[], text[], text[], text[], text[]);
            CREATE FUNCTION switchboard_append_messages(
                p_session_ids uuid[], p_client_msg_ids text[], p_sender_roles text[], p_sender_ids text[],
                p_sender_names text[], p_kinds text[], p_bodies text[])
            RETURNS TABLE (
                ord bigint, status text, id uuid, seq bigint, created_at timestamptz,
                sender_role text, sender_id text, sender_name text, kind text, body text,
                session_version bigint, session_workspace uuid, session_status text, session_title text,
                session_visitor text, session_operator_id text, session_operator_name text,
                session_created_at timestamptz, session_updated_at timestamptz)
            LANGUAGE plpgsql AS $$
            DECLARE
                v_sessions int;
                v_live int;
                v_random text;
                v_prefix text;
                v_tail bigint;
            BEGIN
                v_random := replace(gen_random_uuid()::text, '-', '');
                v_prefix := lpad(to_hex((extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0')
                            || '7' || substr(v_random, 1, 3) || substr(v_random, 17, 4);
                v_tail := ('x' || substr(v_random, 21, 12))::bit(48)::bigint & 140737488355327;

                BEGIN
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
                                   version = s.version + 1,
                                   first_visitor_message_at = CASE
                                       WHEN s.first_visitor_message_at IS NULL AND c.has_visitor THEN now()
                                       ELSE s.first_visitor_message_at END,
                                   first_operator_reply_at = CASE
                                       WHEN s.first_operator_reply_at IS NULL AND c.has_operator
                                            AND (s.first_visitor_message_at IS NOT NULL OR c.has_visitor) THEN now()
                                       ELSE s.first_operator_reply_at END
                              FROM counts c
                             WHERE s.id = c.session_id
                            RETURNING s.id, s.workspace_id, s.last_seq - c.added AS base, c.added, s.version,
                                      s.status, s.title, s.user_id, s.assigned_operator_id, s.assigned_operator_name,
                                      s.created_at, s.updated_at
                        ),
                        rows AS MATERIALIZED (
                            SELECT i.ord, (v_prefix || lpad(to_hex(v_tail + i.ord), 12, '0'))::uuid AS id,
                                   i.session_id, b.workspace_id, b.base + i.n AS seq, i.client_msg_id, i.sender_role,
                                   i.sender_id, i.sender_name, i.kind, i.body, i.n = b.added AS last_of_session
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
                        SELECT r.ord, 'stored'::text, r.id, r.seq, now(), NULL::text, NULL::text, NULL::text,
                               NULL::text, NULL::text,
                               b.version, b.workspace_id, b.status, b.title, b.user_id, b.assigned_operator_id,
                               b.assigned_operator_name, b.created_at, b.updated_at
                          FROM rows r
                          LEFT JOIN bumped b ON r.last_of_session AND b.id = r.session_id
                         WHERE (SELECT count(*) FROM inserted) > 0
                         ORDER BY r.ord;
                        RETURN;
                    END IF;
                EXCEPTION WHEN unique_violation THEN
                    NULL;
                END;

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
                live AS (
                    SELECT k.id, l.workspace_id
                      FROM (SELECT DISTINCT u.id FROM unnest(p_session_ids) AS u(id)) k
                     CROSS JOIN LATERAL (
                         SELECT s.workspace_id, s.deleted_at FROM chat_sessions s
                          WHERE s.id = k.id LIMIT 1) l
                     WHERE l.deleted_at IS NULL
                ),
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
                           version = s.version + 1,
                           first_visitor_message_at = CASE
                               WHEN s.first_visitor_message_at IS NULL AND c.has_visitor THEN now()
                               ELSE s.first_visitor_message_at END,
                           first_operator_reply_at = CASE
                               WHEN s.first_operator_reply_at IS NULL AND c.has_operator
                                    AND (s.first_visitor_message_at IS NOT NULL OR c.has_visitor) THEN now()
                               ELSE s.first_operator_reply_at END
                      FROM counts c
                     WHERE s.id = c.session_id
                    RETURNING s.id, s.last_seq - c.added AS base, c.added, s.version, s.workspace_id, s.status,
                              s.title, s.user_id, s.assigned_operator_id, s.assigned_operator_name, s.created_at,
                              s.updated_at
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
                       CASE WHEN e.id IS NOT NULL THEN e.role WHEN n.ord <> i.ord THEN n.sender_role END,
                       CASE WHEN e.id IS NOT NULL THEN e.sender_id WHEN n.ord <> i.ord THEN n.sender_id END,
                       CASE WHEN e.id IS NOT NULL THEN e.sender_name WHEN n.ord <> i.ord THEN n.sender_name END,
                       CASE WHEN e.id IS NOT NULL THEN e.kind WHEN n.ord <> i.ord THEN n.kind END,
                       CASE WHEN e.id IS NOT NULL THEN e.content WHEN n.ord <> i.ord THEN n.body END,
                       b.version, b.workspace_id, b.status, b.title, b.user_id, b.assigned_operator_id,
                       b.assigned_operator_name, b.created_at, b.updated_at
                  FROM input i
                  LEFT JOIN live l ON l.id = i.session_id
                  LEFT JOIN existing e ON e.session_id = i.session_id AND e.client_msg_id = i.client_msg_id
                  LEFT JOIN numbered n ON n.session_id = i.session_id AND n.client_msg_id = i.client_msg_id
                  LEFT JOIN inserted ins ON ins.session_id = i.session_id AND ins.client_msg_id = i.client_msg_id
                  -- The session's state rides on its last stored row of the batch.
                  LEFT JOIN bumped b ON e.id IS NULL AND n.ord = i.ord AND n.n = b.added AND b.id = i.session_id
                 ORDER BY i.ord;
            END;
            $$;
            """#,
        // Down: version 6's function, and no versions.
        down: #"""
            DROP FUNCTION IF EXISTS switchboard_append_messages(uuid[], text[], text[], text[], text[], text[], text[]);
            ALTER TABLE chat_sessions DROP COLUMN IF EXISTS version;
            """# + Migration0006.migration.sql)
}
