/// Conversations as a team sees them (issue 30): system lines in the
/// history, a closed conversation that a visitor's message reopens, and the
/// operators a workspace has seen.
///
/// - `chats.meta`: the structured change behind a message of `kind`
///   `event` (assigned, unassigned, closed, reopened), whose `content` is
///   the human sentence and whose `client_msg_id` is `event:` and its id. Events take a `seq` like any message, so replay,
///   history and every client tell the same story after a reload.
/// - `switchboard_append_messages` (otherwise as version 7): a visitor's
///   message on a closed session reopens it (status open, no operator) in
///   the batch's own transaction, with a `reopened` event stored at the seq
///   just before the message. The lock query that already reads each
///   session counts the closed ones, so a batch with none pays nothing
///   more. Event rows come back after the commands' rows, with `ord` 0,
///   status `event` and their session and meta in the last two columns.
/// - `switchboard_change_session`: assign, unassign, close, reopen and
///   retitle one session under its row lock, storing the event (if the
///   change is one a participant should see again) in the same
///   transaction. Readers call it; nothing is changed when nothing differs.
/// - `operators`: every operator or admin that connected to a workspace,
///   with the name its token carried, so that a session can be assigned to
///   a named colleague. Row-level security as for `chat_sessions`.
/// - `idx_chat_sessions_assigned`: open assignments per operator. Its
///   columns are never changed by the writer's per-batch update, which so
///   stays HOT (migration 2).
enum Migration0008 {
    static let migration = Migration(
        version: 8, name: "conversation_events",
        sql: #"""
            ALTER TABLE chats ADD COLUMN meta jsonb;

            CREATE TABLE operators (
                workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
                id text NOT NULL CHECK (octet_length(id) BETWEEN 1 AND 128),
                name text CHECK (name IS NULL OR octet_length(name) <= 256),
                role text NOT NULL CHECK (role IN ('operator', 'admin')),
                first_seen_at timestamptz NOT NULL DEFAULT now(),
                last_seen_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (workspace_id, id)
            );
            ALTER TABLE operators ENABLE ROW LEVEL SECURITY;
            CREATE POLICY operators_staff ON operators FOR ALL
                USING (workspace_id::text = switchboard_setting('switchboard.workspace_id')
                       AND switchboard_setting('switchboard.role') IN ('operator', 'admin'))
                WITH CHECK (workspace_id::text = switchboard_setting('switchboard.workspace_id')
                            AND switchboard_setting('switchboard.role') IN ('operator', 'admin'));

            CREATE INDEX idx_chat_sessions_assigned ON chat_sessions (workspace_id, assigned_operator_id)
                WHERE status = 'assigned' AND deleted_at IS NULL;

            CREATE TYPE switchboard_reopen_event AS (
                id uuid, session_id uuid, seq bigint, sender_id text, sender_name text, body text, meta text);

            -- The closed sessions among a batch's that get a new visitor
            -- message (one not stored before): reopened, each with its event.
            -- The caller holds the sessions' row locks.
            CREATE FUNCTION switchboard_reopen_for_visitors(
                p_session_ids uuid[], p_client_msg_ids text[], p_sender_roles text[], p_sender_ids text[],
                p_sender_names text[])
            RETURNS switchboard_reopen_event[]
            LANGUAGE sql AS $$
                WITH firsts AS (
                    SELECT DISTINCT ON (t.session_id) t.session_id, t.sender_id, t.sender_name
                      FROM unnest(p_session_ids, p_client_msg_ids, p_sender_roles, p_sender_ids, p_sender_names)
                           WITH ORDINALITY AS t(session_id, client_msg_id, sender_role, sender_id, sender_name, ord)
                     WHERE t.sender_role = 'visitor'
                       AND NOT EXISTS (SELECT 1 FROM chats c
                                        WHERE c.session_id = t.session_id AND c.client_msg_id = t.client_msg_id)
                     ORDER BY t.session_id, t.ord
                ),
                reopened AS (
                    UPDATE chat_sessions s
                       SET status = 'open', assigned_operator_id = NULL, assigned_operator_name = NULL,
                           closed_at = NULL, last_seq = s.last_seq + 1, version = s.version + 1
                      FROM firsts f
                     WHERE s.id = f.session_id AND s.status = 'closed' AND s.deleted_at IS NULL
                    RETURNING s.id, s.workspace_id, s.last_seq, f.sender_id, f.sender_name,
                              gen_random_uuid() AS event_id
                ),
                inserted AS (
                    INSERT INTO chats (id, session_id, workspace_id, seq, client_msg_id, role, sender_id, sender_name,
                                       kind, content, meta)
                    SELECT r.event_id, r.id, r.workspace_id, r.last_seq, 'event:' || r.event_id::text, 'visitor',
                           r.sender_id, r.sender_name, 'event', 'The conversation was reopened',
                           '{"action":"reopened","reason":"visitor_message"}'::jsonb
                      FROM reopened r
                    RETURNING chats.id, chats.session_id, chats.seq, chats.sender_id, chats.sender_name,
                              chats.content, chats.meta
                )
                SELECT array_agg(ROW(i.id, i.session_id, i.seq, i.sender_id, i.sender_name, i.content,
                                     i.meta::text)::switchboard_reopen_event ORDER BY i.session_id)
                  FROM inserted i;
            $$;

            DROP FUNCTION switchboard_append_messages(uuid[], text[], text[], text[], text[], text[], text[]);
            CREATE FUNCTION switchboard_append_messages(
                p_session_ids uuid[], p_client_msg_ids text[], p_sender_roles text[], p_sender_ids text[],
                p_sender_names text[], p_kinds text[], p_bodies text[])
            RETURNS TABLE (
                ord bigint, status text, id uuid, seq bigint, created_at timestamptz,
                sender_role text, sender_id text, sender_name text, kind text, body text,
                session_version bigint, session_workspace uuid, session_status text, session_title text,
                session_visitor text, session_operator_id text, session_operator_name text,
                session_created_at timestamptz, session_updated_at timestamptz,
                event_session uuid, meta text)
            LANGUAGE plpgsql AS $$
            DECLARE
                v_sessions int;
                v_live int;
                v_random text;
                v_prefix text;
                v_tail bigint;
                v_closed int;
                v_events switchboard_reopen_event[];
            BEGIN
                v_random := replace(gen_random_uuid()::text, '-', '');
                v_prefix := lpad(to_hex((extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0')
                            || '7' || substr(v_random, 1, 3) || substr(v_random, 17, 4);
                v_tail := ('x' || substr(v_random, 21, 12))::bit(48)::bigint & 140737488355327;

                BEGIN
                    SELECT count(*) FILTER (WHERE l.live), count(*), count(*) FILTER (WHERE l.live AND l.closed)
                  INTO v_live, v_sessions, v_closed
                      FROM (SELECT DISTINCT u.id FROM unnest(p_session_ids) AS u(id) ORDER BY u.id) k
                      LEFT JOIN LATERAL (
                          SELECT s.deleted_at IS NULL AS live, s.status = 'closed' AS closed FROM chat_sessions s
                           WHERE s.id = k.id FOR UPDATE) l ON true;
                    IF v_live = v_sessions THEN
                    -- A visitor's message on a closed session reopens it, in
                    -- this transaction; its event takes the seq before it.
                    IF v_closed > 0 THEN
                        v_events := switchboard_reopen_for_visitors(
                            p_session_ids, p_client_msg_ids, p_sender_roles, p_sender_ids, p_sender_names);
                    END IF;
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
                               b.assigned_operator_name, b.created_at, b.updated_at, NULL::uuid, NULL::text
                          FROM rows r
                          LEFT JOIN bumped b ON r.last_of_session AND b.id = r.session_id
                         WHERE (SELECT count(*) FROM inserted) > 0
                         ORDER BY r.ord;
                        RETURN QUERY
                        SELECT 0::bigint, 'event'::text, e.id, e.seq, now(), 'visitor'::text, e.sender_id,
                               e.sender_name, 'event'::text, e.body, NULL::bigint, NULL::uuid, NULL::text,
                               NULL::text, NULL::text, NULL::text, NULL::text, NULL::timestamptz, NULL::timestamptz,
                               e.session_id, e.meta
                          FROM unnest(v_events) e;
                        RETURN;
                    END IF;
                EXCEPTION WHEN unique_violation THEN
                    NULL;
                END;

                SELECT count(*) FILTER (WHERE l.live), count(*), count(*) FILTER (WHERE l.live AND l.closed)
                  INTO v_live, v_sessions, v_closed
                  FROM (SELECT DISTINCT u.id FROM unnest(p_session_ids) AS u(id) ORDER BY u.id) k
                  LEFT JOIN LATERAL (
                      SELECT s.deleted_at IS NULL AS live, s.status = 'closed' AS closed FROM chat_sessions s
                       WHERE s.id = k.id FOR UPDATE) l ON true;
                IF v_closed > 0 THEN
                    v_events := switchboard_reopen_for_visitors(
                        p_session_ids, p_client_msg_ids, p_sender_roles, p_sender_ids, p_sender_names);
                END IF;

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
                       b.assigned_operator_name, b.created_at, b.updated_at, NULL::uuid, NULL::text
                  FROM input i
                  LEFT JOIN live l ON l.id = i.session_id
                  LEFT JOIN existing e ON e.session_id = i.session_id AND e.client_msg_id = i.client_msg_id
                  LEFT JOIN numbered n ON n.session_id = i.session_id AND n.client_msg_id = i.client_msg_id
                  LEFT JOIN inserted ins ON ins.session_id = i.session_id AND ins.client_msg_id = i.client_msg_id
                  -- The session's state rides on its last stored row of the batch.
                  LEFT JOIN bumped b ON e.id IS NULL AND n.ord = i.ord AND n.n = b.added AND b.id = i.session_id
                 ORDER BY i.ord;
                RETURN QUERY
                SELECT 0::bigint, 'event'::text, e.id, e.seq, now(), 'visitor'::text, e.sender_id,
                       e.sender_name, 'event'::text, e.body, NULL::bigint, NULL::uuid, NULL::text,
                       NULL::text, NULL::text, NULL::text, NULL::text, NULL::timestamptz, NULL::timestamptz,
                       e.session_id, e.meta
                  FROM unnest(v_events) e;
            END;
            $$;

            -- One change of one session by one actor (an operator, an admin or
            -- the session's visitor), under the session's row lock: a new title,
            -- a status (open: reopen or unassign; closed; assigned: to the
            -- actor when nobody holds it) or, with p_set_operator, an operator
            -- (NULL: unassign). A change a participant should see again is
            -- stored as an event at the next seq. No row: no such live session.
            CREATE FUNCTION switchboard_change_session(
                p_session_id uuid, p_title text, p_status text, p_set_operator boolean, p_operator_id text,
                p_operator_name text, p_actor_role text, p_actor_id text, p_actor_name text)
            RETURNS TABLE (changed boolean, event_id uuid, event_seq bigint, event_client_msg_id text,
                           event_body text, event_meta text, event_created_at timestamptz)
            LANGUAGE plpgsql AS $$
            DECLARE
                s chat_sessions%ROWTYPE;
                v_status text;
                v_operator text;
                v_operator_name text;
                v_closed_at timestamptz;
                v_action text;
                v_body text;
                v_meta jsonb;
                v_actor text := coalesce(nullif(p_actor_name, ''),
                                         CASE WHEN p_actor_role = 'visitor' THEN 'The visitor' ELSE p_actor_id END);
                v_previous text;
                v_next text;
                v_event chats%ROWTYPE;
            BEGIN
                SELECT * INTO s FROM chat_sessions c WHERE c.id = p_session_id AND c.deleted_at IS NULL FOR UPDATE;
                IF NOT FOUND THEN
                    RETURN;
                END IF;
                v_status := s.status;
                v_operator := s.assigned_operator_id;
                v_operator_name := s.assigned_operator_name;
                v_closed_at := s.closed_at;

                IF p_set_operator AND p_operator_id IS NULL THEN
                    v_operator := NULL;
                    v_operator_name := NULL;
                    IF v_status = 'assigned' THEN
                        v_status := 'open';
                    END IF;
                ELSIF p_set_operator THEN
                    v_operator_name := coalesce(
                        nullif(p_operator_name, ''),
                        CASE WHEN p_operator_id = s.assigned_operator_id THEN s.assigned_operator_name END,
                        (SELECT o.name FROM operators o WHERE o.workspace_id = s.workspace_id AND o.id = p_operator_id));
                    v_operator := p_operator_id;
                    v_status := 'assigned';
                    v_closed_at := NULL;
                ELSIF p_status = 'open' THEN
                    v_status := 'open';
                    v_operator := NULL;
                    v_operator_name := NULL;
                    v_closed_at := NULL;
                ELSIF p_status = 'closed' AND v_status <> 'closed' THEN
                    v_status := 'closed';
                    v_closed_at := now();
                ELSIF p_status = 'assigned' THEN
                    IF v_operator IS NULL THEN
                        v_operator := p_actor_id;
                        v_operator_name := p_actor_name;
                    END IF;
                    v_status := 'assigned';
                    v_closed_at := NULL;
                END IF;

                IF s.status = 'closed' AND v_status = 'open' THEN
                    v_action := 'reopened';
                    v_body := CASE WHEN p_actor_role = 'visitor' THEN 'The conversation was reopened'
                                   ELSE v_actor || ' reopened the conversation' END;
                    v_meta := jsonb_build_object('action', 'reopened', 'reason',
                                                 CASE WHEN p_actor_role = 'visitor' THEN 'visitor' ELSE 'operator' END);
                ELSIF s.status <> 'closed' AND v_status = 'closed' THEN
                    v_action := 'closed';
                    v_body := v_actor || ' closed the conversation';
                    v_meta := jsonb_build_object('action', 'closed');
                ELSIF v_operator IS DISTINCT FROM s.assigned_operator_id THEN
                    v_previous := coalesce(s.assigned_operator_name, s.assigned_operator_id);
                    v_next := coalesce(v_operator_name, v_operator);
                    IF v_operator IS NULL THEN
                        v_action := 'unassigned';
                        v_body := CASE WHEN s.assigned_operator_id = p_actor_id THEN v_previous || ' left the conversation'
                                       ELSE v_actor || ' unassigned ' || v_previous END;
                    ELSE
                        v_action := 'assigned';
                        v_body := CASE
                            WHEN v_operator <> p_actor_id THEN v_actor || ' assigned the conversation to ' || v_next
                            WHEN s.assigned_operator_id IS NULL THEN v_next || ' joined the conversation'
                            ELSE v_next || ' took over the conversation from ' || v_previous END;
                    END IF;
                    v_meta := jsonb_build_object(
                        'action', v_action,
                        'operator', CASE WHEN v_operator IS NULL THEN NULL
                                         ELSE jsonb_build_object('id', v_operator, 'name', v_operator_name) END,
                        'previous', CASE WHEN s.assigned_operator_id IS NULL THEN NULL
                                         ELSE jsonb_build_object('id', s.assigned_operator_id,
                                                                 'name', s.assigned_operator_name) END);
                END IF;

                IF v_status = s.status AND v_operator IS NOT DISTINCT FROM s.assigned_operator_id
                   AND v_operator_name IS NOT DISTINCT FROM s.assigned_operator_name
                   AND (p_title IS NULL OR p_title = s.title) THEN
                    RETURN QUERY SELECT false, NULL::uuid, NULL::bigint, NULL::text, NULL::text, NULL::text,
                                        NULL::timestamptz;
                    RETURN;
                END IF;

                UPDATE chat_sessions c
                   SET title = coalesce(p_title, c.title), status = v_status, assigned_operator_id = v_operator,
                       assigned_operator_name = v_operator_name, closed_at = v_closed_at,
                       last_seq = c.last_seq + CASE WHEN v_action IS NULL THEN 0 ELSE 1 END,
                       version = c.version + 1
                 WHERE c.id = p_session_id;
                IF v_action IS NULL THEN
                    RETURN QUERY SELECT true, NULL::uuid, NULL::bigint, NULL::text, NULL::text, NULL::text,
                                        NULL::timestamptz;
                    RETURN;
                END IF;
                v_event.id := gen_random_uuid();
                INSERT INTO chats (id, session_id, workspace_id, seq, client_msg_id, role, sender_id, sender_name,
                                   kind, content, meta)
                VALUES (v_event.id, s.id, s.workspace_id, s.last_seq + 1, 'event:' || v_event.id::text, p_actor_role,
                        p_actor_id, p_actor_name, 'event', v_body, v_meta)
                RETURNING * INTO v_event;
                RETURN QUERY SELECT true, v_event.id, v_event.seq, v_event.client_msg_id, v_event.content,
                                    v_event.meta::text, v_event.created_at;
            END;
            $$;
            """#,
        // Down: version 7's writer function; events become plain rows of a
        // kind nobody sends, their meta gone.
        down: #"""
            DROP FUNCTION IF EXISTS switchboard_change_session(uuid, text, text, boolean, text, text, text, text, text);
            DROP FUNCTION IF EXISTS switchboard_append_messages(uuid[], text[], text[], text[], text[], text[], text[]);
            DROP FUNCTION IF EXISTS switchboard_reopen_for_visitors(uuid[], text[], text[], text[], text[]);
            DROP TYPE IF EXISTS switchboard_reopen_event;
            DROP INDEX IF EXISTS idx_chat_sessions_assigned;
            DROP TABLE IF EXISTS operators;
            ALTER TABLE chats DROP COLUMN IF EXISTS meta;
            """# + version7AppendFunction)

    /// Version 7's writer function, as migration 7 created it (its SQL from
    /// the CREATE on: the rest of it added a column that stays).
    static var version7AppendFunction: String {
        let sql = Migration0007.migration.sql
        guard let start = sql.firstRange(of: "CREATE FUNCTION switchboard_append_messages") else { return "" }
        return String(sql[start.lowerBound...])
    }
}
