/// Cross-node notifications: `switchboard_append_and_notify` appends a batch
/// exactly as `switchboard_append_messages` (version 7) does and, when given
/// a channel, sends the batch's stored messages to the other gateway nodes
/// with `pg_notify`, inside the batch's transaction: PostgreSQL delivers a
/// notification only if the transaction commits, and in commit order, so a
/// listener never hears of a message that is not durable and hears of one
/// session's messages in `seq` order.
///
/// One notification per batch, carrying the messages (compact arrays, see
/// docs/cluster.md, "Notifications") when they fit PostgreSQL's 8,000-byte
/// payload limit; otherwise one notification per 50 sessions naming each
/// session's `seq` range, which listeners read from the table. The payload
/// is built here, set-based, so the writer's round trip stays one statement.
///
/// With a NULL channel (`cluster.bus` other than `postgres`) it is the
/// version 7 function and nothing more.
enum Migration0008 {
    static let migration = Migration(
        version: 8, name: "cluster_notifications",
        sql: #"""
            CREATE FUNCTION switchboard_notify_batch(p_channel text, p_node text, p_messages json)
            RETURNS int
            LANGUAGE plpgsql AS $$
            DECLARE
                v_stamp bigint := (extract(epoch FROM clock_timestamp()) * 1000000)::bigint;
                v_payload text;
                v_sent int := 0;
                v_chunk record;
            BEGIN
                IF p_messages IS NULL THEN
                    RETURN 0;
                END IF;
                v_payload := json_build_object('v', 1, 'n', p_node, 't', 'm', 'ts', v_stamp, 'm', p_messages)::text;
                IF octet_length(v_payload) < 8000 THEN
                    PERFORM pg_notify(p_channel, v_payload);
                    RETURN 1;
                END IF;
                -- Too big to carry: name each session's range (about 100 bytes a session).
                FOR v_chunk IN
                    SELECT json_build_object('v', 1, 'n', p_node, 't', 'r', 'ts', v_stamp,
                                             'r', json_agg(json_build_array(g.session_id, g.workspace_id,
                                                                            g.first_seq, g.last_seq)))::text AS payload
                      FROM (SELECT e->>1 AS session_id, max(e->10->>1) AS workspace_id,
                                   min((e->>2)::bigint) AS first_seq, max((e->>2)::bigint) AS last_seq,
                                   (dense_rank() OVER (ORDER BY e->>1) - 1) / 50 AS chunk
                              FROM json_array_elements(p_messages) e
                             GROUP BY e->>1) g
                     GROUP BY g.chunk
                LOOP
                    PERFORM pg_notify(p_channel, v_chunk.payload);
                    v_sent := v_sent + 1;
                END LOOP;
                RETURN v_sent;
            END;
            $$;

            CREATE FUNCTION switchboard_append_and_notify(
                p_session_ids uuid[], p_client_msg_ids text[], p_sender_roles text[], p_sender_ids text[],
                p_sender_names text[], p_kinds text[], p_bodies text[], p_channel text, p_node text)
            RETURNS TABLE (
                ord bigint, status text, id uuid, seq bigint, created_at timestamptz,
                sender_role text, sender_id text, sender_name text, kind text, body text,
                session_version bigint, session_workspace uuid, session_status text, session_title text,
                session_visitor text, session_operator_id text, session_operator_name text,
                session_created_at timestamptz, session_updated_at timestamptz)
            LANGUAGE plpgsql AS $$
            #variable_conflict use_column
            BEGIN
                IF p_channel IS NULL THEN
                    RETURN QUERY SELECT a.* FROM switchboard_append_messages(
                        p_session_ids, p_client_msg_ids, p_sender_roles, p_sender_ids, p_sender_names, p_kinds,
                        p_bodies) a;
                    RETURN;
                END IF;
                RETURN QUERY
                WITH appended AS MATERIALIZED (
                    SELECT a.* FROM switchboard_append_messages(
                        p_session_ids, p_client_msg_ids, p_sender_roles, p_sender_ids, p_sender_names, p_kinds,
                        p_bodies) a
                ),
                notified AS MATERIALIZED (
                    SELECT switchboard_notify_batch(p_channel, p_node, (
                        SELECT json_agg(json_build_array(
                                   a.id, i.in_session, a.seq, i.in_client, i.in_kind, i.in_body, i.in_role,
                                   i.in_sender, i.in_name,
                                   to_char(a.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                   CASE WHEN a.session_version IS NOT NULL THEN json_build_array(
                                       a.session_version, a.session_workspace, a.session_status, a.session_title,
                                       a.session_visitor, a.session_operator_id, a.session_operator_name,
                                       to_char(a.session_created_at AT TIME ZONE 'UTC',
                                               'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                       to_char(a.session_updated_at AT TIME ZONE 'UTC',
                                               'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) END)
                                   ORDER BY a.ord)
                          FROM appended a
                          JOIN unnest(p_session_ids, p_client_msg_ids, p_sender_roles, p_sender_ids, p_sender_names,
                                      p_kinds, p_bodies)
                               WITH ORDINALITY AS i(in_session, in_client, in_role, in_sender, in_name, in_kind,
                                                    in_body, in_ord)
                            ON i.in_ord = a.ord
                         WHERE a.status = 'stored')) AS sent
                )
                SELECT a.* FROM appended a CROSS JOIN notified n ORDER BY a.ord;
            END;
            $$;
            """#,
        down: #"""
            DROP FUNCTION IF EXISTS switchboard_append_and_notify(
                uuid[], text[], text[], text[], text[], text[], text[], text, text);
            DROP FUNCTION IF EXISTS switchboard_notify_batch(text, text, json);
            """#)
}
