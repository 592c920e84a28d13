/// The batched writer's one round trip: stores a batch of messages and
/// returns, for each input row in order, its stored row or the row it
/// duplicates.
///
/// Why a function: the writer must number each session's messages without
/// gaps, across every gateway node. It first locks the batch's sessions (in id
/// order, so two writers never deadlock); the next statement then runs on a
/// fresh snapshot that sees every message committed by whoever held those
/// locks before, so the duplicate check is exact and `seq` comes from
/// `last_seq` without collisions. Called as one autocommitted statement, a
/// batch costs one round trip and one commit.
///
/// Result status: 'stored', 'duplicate' (same session and client_msg_id as an
/// earlier message, whose row is returned), or 'no_session' (the session does
/// not exist or was deleted).
enum Migration0005 {
    static let migration = Migration(
        version: 5, name: "append_messages_function",
        sql: #"""
            CREATE FUNCTION switchboard_append_messages(
                p_session_ids uuid[], p_client_msg_ids text[], p_sender_roles text[], p_sender_ids text[],
                p_sender_names text[], p_kinds text[], p_bodies text[])
            RETURNS TABLE (
                ord bigint, status text, id uuid, session_id uuid, seq bigint, created_at timestamptz,
                client_msg_id text, sender_role text, sender_id text, sender_name text, kind text, body text)
            LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM 1 FROM chat_sessions s
                 WHERE s.id = ANY (p_session_ids)
                 ORDER BY s.id
                 FOR UPDATE;

                RETURN QUERY
                WITH input AS (
                    SELECT t.* FROM unnest(p_session_ids, p_client_msg_ids, p_sender_roles, p_sender_ids,
                                           p_sender_names, p_kinds, p_bodies)
                        WITH ORDINALITY AS t(session_id, client_msg_id, sender_role, sender_id,
                                             sender_name, kind, body, ord)
                ),
                live AS (
                    SELECT s.id, s.workspace_id FROM chat_sessions s
                     WHERE s.id = ANY (p_session_ids) AND s.deleted_at IS NULL
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
                    RETURNING chats.id, chats.session_id, chats.seq, chats.created_at, chats.client_msg_id,
                              chats.role, chats.sender_id, chats.sender_name, chats.kind, chats.content
                )
                SELECT i.ord,
                       CASE WHEN l.id IS NULL THEN 'no_session'
                            WHEN e.id IS NOT NULL THEN 'duplicate'
                            WHEN n.ord = i.ord THEN 'stored'
                            ELSE 'duplicate' END,
                       COALESCE(e.id, ins.id), i.session_id, COALESCE(e.seq, ins.seq),
                       COALESCE(e.created_at, ins.created_at), i.client_msg_id,
                       COALESCE(e.role, ins.role), COALESCE(e.sender_id, ins.sender_id),
                       COALESCE(e.sender_name, ins.sender_name), COALESCE(e.kind, ins.kind),
                       COALESCE(e.content, ins.content)
                  FROM input i
                  LEFT JOIN live l ON l.id = i.session_id
                  LEFT JOIN existing e ON e.session_id = i.session_id AND e.client_msg_id = i.client_msg_id
                  LEFT JOIN numbered n ON n.session_id = i.session_id AND n.client_msg_id = i.client_msg_id
                  LEFT JOIN inserted ins ON ins.session_id = i.session_id AND ins.client_msg_id = i.client_msg_id
                 ORDER BY i.ord;
            END;
            $$;
            """#,
        down: #"""
            DROP FUNCTION IF EXISTS switchboard_append_messages(uuid[], text[], text[], text[], text[], text[], text[]);
            """#)
}
