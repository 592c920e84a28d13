/// Messages that send attachments (issue 33, docs/attachments.md).
///
/// - `chats.attachments`: the sent uploads' objects, in the order the sender
///   gave them (`id`, `filename`, `content_type`, `size`, `sha256`, `width`,
///   `height`, `thumbnail`: whether a thumbnail exists), written once with the
///   message; NULL for a message without attachments. Signed URLs are not
///   stored: they are minted whenever a message is encoded.
/// - `switchboard_append_messages` (otherwise as version 9) takes an eighth
///   array, each message's attachment ids joined by commas (NULL: none), and
///   returns the stored objects in a last column. The whole parameter is NULL
///   (its default, so seven arrays still call it) when no message of the batch
///   has attachments, and then nothing of the below runs: the batch costs what
///   it did. Otherwise, after the sessions'
///   row locks, it locks the named attachments (in id order) and judges each
///   new send (`switchboard_refused_attachments`): every attachment must be
///   an upload to the same session by the sender (role and id) that no
///   message has sent yet, and not one an earlier send of the batch names. A
///   send that fails is not stored (nor does it reopen a closed session); its
///   row comes back as `bad_attachment` with the first failing attachment's
///   id in `id`, while the batch's other sends are stored. A stored send
///   marks its attachments sent (`message_id`, `sent_at`); a duplicate
///   returns the original's objects.
/// - Lock order: sessions, then attachments, by every writer; an upload's
///   commit waits on its session's row lock (its foreign key) and the
///   writer never waits on an uncommitted upload, so the two cannot deadlock.
enum Migration0012 {
    static let migration = Migration(version: 12, name: "message_attachments", sql: sql, down: down)

    private static let sql =
        #"""
        ALTER TABLE chats ADD COLUMN attachments jsonb
            CHECK (attachments IS NULL OR jsonb_typeof(attachments) = 'array');

        -- The objects a message stores for the uploads it sends, in the order
        -- of p_ids (UUID text joined by commas). STRICT: a message without
        -- attachments costs no call.
        CREATE FUNCTION switchboard_attachment_objects(p_ids text) RETURNS jsonb
        LANGUAGE sql STABLE STRICT AS $$
            SELECT jsonb_agg(jsonb_build_object(
                       'id', a.id, 'filename', a.filename, 'content_type', a.content_type, 'size', a.size,
                       'sha256', a.sha256, 'width', a.width, 'height', a.height,
                       'thumbnail', a.thumbnail_size IS NOT NULL) ORDER BY x.n)
              FROM unnest(string_to_array(p_ids, ',')::uuid[]) WITH ORDINALITY AS x(id, n)
              JOIN attachments a ON a.id = x.id;
        $$;

        -- The sends of a batch that may not send their attachments, each with
        -- the first attachment at fault: missing, of another session or
        -- uploader, sent already, or named by an earlier send of the batch.
        -- Only a send's first row is judged, and not when the send was stored
        -- before (a duplicate's attachments are the original's). The caller
        -- holds the attachments' row locks.
        CREATE FUNCTION switchboard_refused_attachments(
            p_session_ids uuid[], p_client_msg_ids text[], p_sender_roles text[], p_sender_ids text[],
            p_attachments text[])
        RETURNS TABLE (ord bigint, attachment_id uuid)
        LANGUAGE sql STABLE AS $$
            WITH firsts AS (
                SELECT DISTINCT ON (t.session_id, t.client_msg_id) t.*
                  FROM unnest(p_session_ids, p_client_msg_ids, p_sender_roles, p_sender_ids, p_attachments)
                       WITH ORDINALITY AS t(session_id, client_msg_id, sender_role, sender_id, attachments, ord)
                 ORDER BY t.session_id, t.client_msg_id, t.ord
            ),
            wanted AS (
                SELECT f.ord, f.session_id, f.sender_role, f.sender_id, x.id, x.n
                  FROM firsts f
                 CROSS JOIN LATERAL unnest(string_to_array(f.attachments, ',')::uuid[]) WITH ORDINALITY AS x(id, n)
                 WHERE f.attachments IS NOT NULL
                   AND NOT EXISTS (SELECT 1 FROM chats c
                                    WHERE c.session_id = f.session_id AND c.client_msg_id = f.client_msg_id)
            )
            SELECT DISTINCT ON (w.ord) w.ord, w.id
              FROM wanted w
              LEFT JOIN attachments a ON a.id = w.id
             WHERE a.id IS NULL OR a.session_id <> w.session_id OR a.uploader_role <> w.sender_role
                OR a.uploader_id <> w.sender_id OR a.message_id IS NOT NULL
                OR EXISTS (SELECT 1 FROM wanted o WHERE o.id = w.id AND o.ord < w.ord)
             ORDER BY w.ord, w.n;
        $$;

        DROP FUNCTION switchboard_append_messages(uuid[], text[], text[], text[], text[], text[], text[]);
        CREATE FUNCTION switchboard_append_messages(
            p_session_ids uuid[], p_client_msg_ids text[], p_sender_roles text[], p_sender_ids text[],
            p_sender_names text[], p_kinds text[], p_bodies text[], p_attachments text[] DEFAULT NULL)
        RETURNS TABLE (
            ord bigint, status text, id uuid, seq bigint, created_at timestamptz,
            sender_role text, sender_id text, sender_name text, kind text, body text,
            session_version bigint, session_workspace uuid, session_status text, session_title text,
            session_visitor text, session_operator_id text, session_operator_name text,
            session_created_at timestamptz, session_updated_at timestamptz,
            event_session uuid, meta text, session_waiting_since timestamptz, session_contact text,
            attachments text)
        LANGUAGE plpgsql AS $$
        DECLARE
            v_sessions int;
            v_live int;
            v_random text;
            v_prefix text;
            v_tail bigint;
            v_closed int;
            v_events switchboard_reopen_event[];
            v_refused_ords bigint[];
            v_refused_ids uuid[];
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
                IF p_attachments IS NOT NULL THEN
                    PERFORM 1 FROM attachments a
                     WHERE a.id IN (SELECT x.id::uuid FROM unnest(p_attachments) AS t(ids)
                                     CROSS JOIN LATERAL unnest(string_to_array(t.ids, ',')) AS x(id))
                     ORDER BY a.id FOR UPDATE OF a;
                    SELECT array_agg(r.ord ORDER BY r.ord), array_agg(r.attachment_id ORDER BY r.ord)
                      INTO v_refused_ords, v_refused_ids
                      FROM switchboard_refused_attachments(
                          p_session_ids, p_client_msg_ids, p_sender_roles, p_sender_ids, p_attachments) r;
                END IF;
                -- A refused send takes the general path below, which stores the others.
                IF v_live = v_sessions AND v_refused_ords IS NULL THEN
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
                                      p_sender_names, p_kinds, p_bodies, p_attachments)
                               WITH ORDINALITY AS t(session_id, client_msg_id, sender_role, sender_id,
                                                    sender_name, kind, body, attachments, ord)
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
                               waiting_since = CASE
                                   WHEN s.waiting_since IS NULL AND c.has_visitor AND s.status = 'open'
                                        AND s.assigned_operator_id IS NULL THEN now()
                                   ELSE s.waiting_since END,
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
                                  s.created_at, s.updated_at, s.waiting_since, s.contact
                    ),
                    rows AS MATERIALIZED (
                        SELECT i.ord, (v_prefix || lpad(to_hex(v_tail + i.ord), 12, '0'))::uuid AS id,
                               i.session_id, b.workspace_id, b.base + i.n AS seq, i.client_msg_id, i.sender_role,
                               i.sender_id, i.sender_name, i.kind, i.body, i.n = b.added AS last_of_session,
                               i.attachments, switchboard_attachment_objects(i.attachments) AS attachment_objects
                          FROM input i JOIN bumped b ON b.id = i.session_id
                    ),
                    inserted AS (
                        INSERT INTO chats (id, session_id, workspace_id, seq, client_msg_id, role, sender_id,
                                           sender_name, kind, content, created_at, attachments)
                        SELECT r.id, r.session_id, r.workspace_id, r.seq, r.client_msg_id, r.sender_role,
                               r.sender_id, r.sender_name, r.kind, r.body, now(), r.attachment_objects
                          FROM rows r
                        RETURNING chats.id
                    )
                    SELECT r.ord, 'stored'::text, r.id, r.seq, now(), NULL::text, NULL::text, NULL::text,
                           NULL::text, NULL::text,
                           b.version, b.workspace_id, b.status, b.title, b.user_id, b.assigned_operator_id,
                           b.assigned_operator_name, b.created_at, b.updated_at, NULL::uuid, NULL::text,
                           b.waiting_since, b.contact::text, r.attachment_objects::text
                      FROM rows r
                      LEFT JOIN bumped b ON r.last_of_session AND b.id = r.session_id
                     WHERE (SELECT count(*) FROM inserted) > 0
                     ORDER BY r.ord;
                    -- Every send was stored: each upload to its message (the ids
                    -- made as above). A statement of its own, not a CTE, so that a
                    -- batch without attachments does not even open the table.
                    IF p_attachments IS NOT NULL THEN
                        UPDATE attachments a
                           SET message_id = (v_prefix || lpad(to_hex(v_tail + t.ord), 12, '0'))::uuid, sent_at = now()
                          FROM unnest(p_attachments) WITH ORDINALITY AS t(ids, ord)
                         CROSS JOIN LATERAL unnest(string_to_array(t.ids, ',')::uuid[]) AS x(id)
                         WHERE t.ids IS NOT NULL AND a.id = x.id;
                    END IF;
                    RETURN QUERY
                    SELECT 0::bigint, 'event'::text, e.id, e.seq, now(), 'visitor'::text, e.sender_id,
                           e.sender_name, 'event'::text, e.body, NULL::bigint, NULL::uuid, NULL::text,
                           NULL::text, NULL::text, NULL::text, NULL::text, NULL::timestamptz, NULL::timestamptz,
                           e.session_id, e.meta, NULL::timestamptz, NULL::text, NULL::text
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
            IF p_attachments IS NOT NULL THEN
                PERFORM 1 FROM attachments a
                 WHERE a.id IN (SELECT x.id::uuid FROM unnest(p_attachments) AS t(ids)
                                 CROSS JOIN LATERAL unnest(string_to_array(t.ids, ',')) AS x(id))
                 ORDER BY a.id FOR UPDATE OF a;
                SELECT array_agg(r.ord ORDER BY r.ord), array_agg(r.attachment_id ORDER BY r.ord)
                  INTO v_refused_ords, v_refused_ids
                  FROM switchboard_refused_attachments(
                      p_session_ids, p_client_msg_ids, p_sender_roles, p_sender_ids, p_attachments) r;
            END IF;
            IF v_closed > 0 AND v_refused_ords IS NULL THEN
                v_events := switchboard_reopen_for_visitors(
                    p_session_ids, p_client_msg_ids, p_sender_roles, p_sender_ids, p_sender_names);
            ELSIF v_closed > 0 THEN
                -- A refused send reopens nothing: the others' arrays only.
                SELECT switchboard_reopen_for_visitors(
                           array_agg(t.session_id ORDER BY t.ord), array_agg(t.client_msg_id ORDER BY t.ord),
                           array_agg(t.sender_role ORDER BY t.ord), array_agg(t.sender_id ORDER BY t.ord),
                           array_agg(t.sender_name ORDER BY t.ord))
                  INTO v_events
                  FROM unnest(p_session_ids, p_client_msg_ids, p_sender_roles, p_sender_ids, p_sender_names)
                       WITH ORDINALITY AS t(session_id, client_msg_id, sender_role, sender_id, sender_name, ord)
                 WHERE NOT EXISTS (SELECT 1 FROM unnest(v_refused_ords) AS r(ord)
                                    WHERE p_session_ids[r.ord] = t.session_id
                                      AND p_client_msg_ids[r.ord] = t.client_msg_id);
            END IF;

            RETURN QUERY
            WITH input AS (
                SELECT t.* FROM unnest(p_session_ids, p_client_msg_ids, p_sender_roles, p_sender_ids,
                                       p_sender_names, p_kinds, p_bodies, p_attachments)
                    WITH ORDINALITY AS t(session_id, client_msg_id, sender_role, sender_id,
                                         sender_name, kind, body, attachments, ord)
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
            refused AS (
                SELECT f.session_id, f.client_msg_id, r.id
                  FROM fresh f JOIN unnest(v_refused_ords, v_refused_ids) AS r(ord, id) ON r.ord = f.ord
            ),
            kept AS (
                SELECT f.*, switchboard_attachment_objects(f.attachments) AS attachment_objects
                  FROM fresh f
                 WHERE v_refused_ords IS NULL OR f.ord <> ALL (v_refused_ords)
            ),
            numbered AS (
                SELECT k.*, row_number() OVER (PARTITION BY k.session_id ORDER BY k.ord) AS n FROM kept k
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
                       waiting_since = CASE
                           WHEN s.waiting_since IS NULL AND c.has_visitor AND s.status = 'open'
                                AND s.assigned_operator_id IS NULL THEN now()
                           ELSE s.waiting_since END,
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
                          s.updated_at, s.waiting_since, s.contact
            ),
            inserted AS (
                INSERT INTO chats (session_id, workspace_id, seq, client_msg_id, role, sender_id,
                                   sender_name, kind, content, attachments)
                SELECT n.session_id, n.workspace_id, b.base + n.n, n.client_msg_id, n.sender_role,
                       n.sender_id, n.sender_name, n.kind, n.body, n.attachment_objects
                  FROM numbered n JOIN bumped b ON b.id = n.session_id
                RETURNING chats.id, chats.session_id, chats.seq, chats.created_at, chats.client_msg_id
            ),
            claimed AS (
                UPDATE attachments a SET message_id = ins.id, sent_at = now()
                  FROM numbered n
                  JOIN inserted ins ON ins.session_id = n.session_id AND ins.client_msg_id = n.client_msg_id
                 CROSS JOIN LATERAL unnest(string_to_array(n.attachments, ',')::uuid[]) AS x(id)
                 WHERE p_attachments IS NOT NULL AND a.id = x.id
            )
            SELECT i.ord,
                   CASE WHEN l.id IS NULL THEN 'no_session'
                        WHEN e.id IS NOT NULL THEN 'duplicate'
                        WHEN n.ord = i.ord THEN 'stored'
                        WHEN n.ord IS NULL THEN 'bad_attachment'
                        ELSE 'duplicate' END,
                   COALESCE(e.id, ins.id, rf.id), COALESCE(e.seq, ins.seq), COALESCE(e.created_at, ins.created_at),
                   CASE WHEN e.id IS NOT NULL THEN e.role WHEN n.ord <> i.ord THEN n.sender_role END,
                   CASE WHEN e.id IS NOT NULL THEN e.sender_id WHEN n.ord <> i.ord THEN n.sender_id END,
                   CASE WHEN e.id IS NOT NULL THEN e.sender_name WHEN n.ord <> i.ord THEN n.sender_name END,
                   CASE WHEN e.id IS NOT NULL THEN e.kind WHEN n.ord <> i.ord THEN n.kind END,
                   CASE WHEN e.id IS NOT NULL THEN e.content WHEN n.ord <> i.ord THEN n.body END,
                   b.version, b.workspace_id, b.status, b.title, b.user_id, b.assigned_operator_id,
                   b.assigned_operator_name, b.created_at, b.updated_at, NULL::uuid, NULL::text,
                   b.waiting_since, b.contact::text,
                   CASE WHEN e.id IS NOT NULL THEN e.attachments::text ELSE n.attachment_objects::text END
              FROM input i
              LEFT JOIN live l ON l.id = i.session_id
              LEFT JOIN existing e ON e.session_id = i.session_id AND e.client_msg_id = i.client_msg_id
              LEFT JOIN numbered n ON n.session_id = i.session_id AND n.client_msg_id = i.client_msg_id
              LEFT JOIN inserted ins ON ins.session_id = i.session_id AND ins.client_msg_id = i.client_msg_id
              LEFT JOIN refused rf ON rf.session_id = i.session_id AND rf.client_msg_id = i.client_msg_id
              -- The session's state rides on its last stored row of the batch.
              LEFT JOIN bumped b ON e.id IS NULL AND n.ord = i.ord AND n.n = b.added AND b.id = i.session_id
             ORDER BY i.ord;
            RETURN QUERY
            SELECT 0::bigint, 'event'::text, e.id, e.seq, now(), 'visitor'::text, e.sender_id,
                   e.sender_name, 'event'::text, e.body, NULL::bigint, NULL::uuid, NULL::text,
                   NULL::text, NULL::text, NULL::text, NULL::text, NULL::timestamptz, NULL::timestamptz,
                   e.session_id, e.meta, NULL::timestamptz, NULL::text, NULL::text
              FROM unnest(v_events) e;
        END;
        $$;

        """#

    // Down: version 9's writer function; messages lose their attachment
    // lists (the uploads stay, marked sent).
    private static let down =
        #"""
        DROP FUNCTION IF EXISTS switchboard_append_messages(
            uuid[], text[], text[], text[], text[], text[], text[], text[]);
        DROP FUNCTION IF EXISTS switchboard_refused_attachments(uuid[], text[], text[], text[], text[]);
        DROP FUNCTION IF EXISTS switchboard_attachment_objects(text);
        ALTER TABLE chats DROP COLUMN IF EXISTS attachments;

        """# + SQLText.function("switchboard_append_messages", in: Migration0009.migration.sql) + "\n"
}
