/// Migration 13's functions that write the outbox: event ids, bodies, and
/// the two ways events are written, with their deliveries, in the
/// transaction of the change they report.
///
/// - `switchboard_webhook_emit`: one event (a session's change, a test) and
///   its deliveries, to every live enabled endpoint of the workspace that
///   asked for the type (or to one named endpoint); nothing when none did.
///   It notifies `switchboard_webhooks`, which PostgreSQL delivers at commit
///   (and not at all on a rollback), so that dispatchers on every node wake.
/// - `switchboard_webhook_messages`: a batch's messages, one multi-row insert
///   of events and one of deliveries for the whole batch, called by the
///   writer's function (`Migration0013+Writer.swift`), which counts what it
///   wrote in its result instead of notifying: a NOTIFY takes a lock held
///   to the end of the commit, which would order every writer's commits.
///
/// Both run as their owner (SECURITY DEFINER, with the search path fixed at
/// creation), so that a change made by a role confined by row-level security
/// still writes its event, and such a role cannot write events itself.
///
/// Bodies are built with `concat` (one allocation for the whole string)
/// and `to_json(text)` for every string, not `json_build_object`: the keys
/// stay in the protocol's order, the JSON stays compact, and it costs less
/// (1,000 bodies: 4 ms, against 7 ms with `||` and 9 with
/// `json_build_object`). The small SQL functions of one expression are
/// inlined into the statement that calls them, which needs them declared
/// STABLE like what they call (`to_json`, `concat`): declared IMMUTABLE, each
/// would be a function call per row, twice the cost.
extension Migration0013 {
    static let outboxFunctions =
        #"""
        -- Crockford's base32 (the ULID alphabet) of the low 5 * p_width bits of p_value, most
        -- significant first. For the once-per-statement part of an id.
        CREATE FUNCTION switchboard_base32(p_value bigint, p_width int) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
            SELECT string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ',
                                     ((p_value >> (5 * (p_width - g))) & 31)::int + 1, 1), '' ORDER BY g)
              FROM generate_series(1, p_width) AS g;
        $$;

        -- The same for 4 characters (20 bits), in one expression so that it is inlined: an
        -- event's place in its statement, per row.
        CREATE FUNCTION switchboard_base32_4(p_value bigint) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
            SELECT substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((p_value >> 15) & 31)::int + 1, 1)
                   || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((p_value >> 10) & 31)::int + 1, 1)
                   || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((p_value >> 5) & 31)::int + 1, 1)
                   || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (p_value & 31)::int + 1, 1)
        $$;

        -- `evt_` and the first 22 of a ULID's 26 characters: 48 bits of Unix milliseconds, then
        -- 60 random bits (of a version 4 UUID, skipping its fixed version and variant digits).
        -- The caller appends switchboard_base32_4 of each event's place, so ids sort by time and,
        -- within a statement, by place; two statements in one millisecond share no prefix.
        CREATE FUNCTION switchboard_webhook_id_prefix() RETURNS text
        LANGUAGE sql VOLATILE AS $$
            SELECT 'evt_' || switchboard_base32((extract(epoch FROM clock_timestamp()) * 1000)::bigint, 10)
                   || switchboard_base32(('x' || substr(u, 1, 12) || substr(u, 18, 3))::bit(60)::bigint, 12)
              FROM (SELECT replace(gen_random_uuid()::text, '-', '') AS u) r
        $$;

        -- RFC 3339 in UTC with milliseconds, as the gateway spells time everywhere.
        CREATE FUNCTION switchboard_webhook_time(p_time timestamptz) RETURNS text
        LANGUAGE sql STABLE AS $$
            SELECT to_char(p_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
        $$;

        -- The envelope every event shares around its data (JSON text), in the protocol's order;
        -- p_created_at as switchboard_webhook_time spells it.
        CREATE FUNCTION switchboard_webhook_body(
            p_id text, p_type text, p_created_at text, p_workspace_id uuid, p_data text)
        RETURNS text
        LANGUAGE sql STABLE AS $$
            SELECT concat('{"id":', to_json(p_id), ',"type":', to_json(p_type), ',"created_at":"', p_created_at,
                          '","workspace_id":"', p_workspace_id, '","data":', p_data, '}')
        $$;

        -- A message as the WebSocket's `message` frame carries it, but for its type: session_id,
        -- seq, id, client_msg_id, kind, body, sender, created_at (as switchboard_webhook_time
        -- spells it), and its attachments as stored (without the signed URLs a frame gets, which
        -- would expire long before the last retry).
        CREATE FUNCTION switchboard_webhook_message(
            p_session_id uuid, p_seq bigint, p_id uuid, p_client_msg_id text, p_kind text, p_body text,
            p_sender_id text, p_sender_role text, p_sender_name text, p_created_at text, p_attachments jsonb)
        RETURNS text
        LANGUAGE sql STABLE AS $$
            SELECT concat('{"session_id":"', p_session_id, '","seq":', p_seq, ',"id":"', p_id,
                          '","client_msg_id":', to_json(p_client_msg_id), ',"kind":', to_json(p_kind),
                          ',"body":', to_json(coalesce(p_body, '')), ',"sender":{"id":', to_json(coalesce(p_sender_id, '')),
                          ',"role":', to_json(coalesce(p_sender_role, '')),
                          ',"name":', coalesce(to_json(p_sender_name)::text, 'null'), '},"created_at":"', p_created_at, '"',
                          ',"attachments":' || p_attachments::text, '}')
        $$;

        -- A session as the WebSocket's `session` object carries it (docs/protocol.md), its last
        -- message the newest that is not an event, as the readers find it.
        CREATE FUNCTION switchboard_webhook_session(s chat_sessions) RETURNS text
        LANGUAGE sql STABLE AS $$
            SELECT '{"id":"' || s.id::text || '","workspace_id":"' || s.workspace_id::text
                   || '","visitor_id":' || coalesce(to_json(s.user_id)::text, 'null')
                   || ',"title":' || to_json(s.title)::text || ',"status":' || to_json(s.status)::text
                   || ',"assigned_operator":'
                   || CASE WHEN s.assigned_operator_id IS NULL THEN 'null'
                           ELSE '{"id":' || to_json(s.assigned_operator_id)::text || ',"name":'
                                || coalesce(to_json(s.assigned_operator_name)::text, 'null') || '}' END
                   || ',"last_seq":' || s.last_seq::text || ',"last_message":'
                   || coalesce((SELECT '{"seq":' || l.seq::text || ',"body":' || to_json(coalesce(l.content, ''))::text
                                       || ',"sender_role":' || to_json(coalesce(l.role, ''))::text
                                       || ',"created_at":"' || switchboard_webhook_time(l.created_at) || '"}'
                                  FROM chats l
                                 WHERE l.session_id = s.id AND l.kind <> 'event'
                                 ORDER BY l.seq DESC LIMIT 1), 'null')
                   || ',"created_at":"' || switchboard_webhook_time(s.created_at)
                   || '","updated_at":"' || switchboard_webhook_time(s.updated_at)
                   || '","version":' || s.version::text
                   || ',"queued":' || (s.status = 'open' AND s.assigned_operator_id IS NULL
                                       AND s.waiting_since IS NOT NULL AND s.deleted_at IS NULL)::text
                   || ',"waiting_since":'
                   || coalesce('"' || switchboard_webhook_time(s.waiting_since) || '"', 'null')
                   || coalesce(',"contact":' || s.contact::text, '')
                   || CASE WHEN s.deleted_at IS NOT NULL THEN ',"deleted":true' ELSE '' END || '}'
        $$;

        -- One event of p_type with p_data, and its deliveries, due now: to every live, enabled
        -- endpoint of the workspace that asked for the type, or, with p_endpoint_id, to that
        -- endpoint alone (a test), whatever it asked for and whether or not it is enabled.
        -- Returns the event's id; NULL, having written nothing, when no endpoint wanted it.
        CREATE FUNCTION switchboard_webhook_emit(
            p_workspace_id uuid, p_type text, p_data text, p_endpoint_id uuid DEFAULT NULL)
        RETURNS text
        LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
        DECLARE
            v_id text := switchboard_webhook_id_prefix() || '0000';
            v_targets uuid[];
        BEGIN
            SELECT array_agg(e.id) INTO v_targets
              FROM webhook_endpoints e
             WHERE e.workspace_id = p_workspace_id AND e.deleted_at IS NULL
               AND CASE WHEN p_endpoint_id IS NULL THEN e.enabled AND p_type = ANY (e.events)
                        ELSE e.id = p_endpoint_id END;
            IF v_targets IS NULL THEN
                RETURN NULL;
            END IF;
            INSERT INTO webhook_events (id, workspace_id, type, body, created_at)
            VALUES (v_id, p_workspace_id, p_type,
                    switchboard_webhook_body(v_id, p_type, switchboard_webhook_time(now()), p_workspace_id, p_data), now());
            INSERT INTO webhook_deliveries (workspace_id, event_id, endpoint_id, next_attempt_at)
            SELECT p_workspace_id, v_id, t.id, now() FROM unnest(v_targets) AS t(id);
            PERFORM pg_notify('switchboard_webhooks', '');
            RETURN v_id;
        END;
        $$;

        -- The message.created and note.created events of a batch's messages (those of
        -- p_message_ids that exist; p_workspaces: their workspaces, repeats allowed), one
        -- multi-row insert of events and one of deliveries, for the messages whose workspace has a
        -- live, enabled endpoint asking for their type. A note goes only to endpoints that name
        -- note.created; events (system lines) are no message.created: the session.updated of their
        -- change reports them. Each event's session version is the session's after the batch.
        -- Returns how many events it wrote.
        --
        -- Every table is reached by key, through laterals the planner cannot flatten (LIMIT,
        -- OFFSET): the writer plans generically, and a generic plan made while `chats` was small
        -- joined the batch's ids to a scan of every message (docs/writer.md, "Generic plans").
        CREATE FUNCTION switchboard_webhook_messages(p_message_ids uuid[], p_workspaces uuid[]) RETURNS int
        LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
        DECLARE
            v_prefix text := switchboard_webhook_id_prefix();
            -- The batch's messages were stored at now(): their time is the events' too.
            v_now text := switchboard_webhook_time(now());
            v_written int;
        BEGIN
            WITH hooks AS MATERIALIZED (
                SELECT h.* FROM (SELECT DISTINCT w.id FROM unnest(p_workspaces) AS w(id)) w
                 CROSS JOIN LATERAL (
                     SELECT e.id, e.workspace_id, e.events FROM webhook_endpoints e
                      WHERE e.workspace_id = w.id AND e.enabled AND e.deleted_at IS NULL
                        AND e.events && '{message.created,note.created}'::text[]
                     OFFSET 0) h
            ),
            stored AS (
                SELECT x.ord, c.*, CASE WHEN c.kind = 'note' THEN 'note.created' ELSE 'message.created' END AS type
                  FROM unnest(p_message_ids) WITH ORDINALITY AS x(id, ord)
                 CROSS JOIN LATERAL (SELECT * FROM chats m WHERE m.id = x.id LIMIT 1) c
                 WHERE c.kind <> 'event'
            ),
            wanted AS (
                SELECT s.*, v_prefix || switchboard_base32_4(s.ord) AS event_id
                  FROM stored s
                 WHERE EXISTS (SELECT 1 FROM hooks h WHERE h.workspace_id = s.workspace_id AND s.type = ANY (h.events))
            ),
            events AS (
                INSERT INTO webhook_events (id, workspace_id, type, body, created_at)
                SELECT w.event_id, w.workspace_id, w.type,
                       switchboard_webhook_body(
                           w.event_id, w.type, v_now, w.workspace_id,
                           concat('{"message":',
                                  switchboard_webhook_message(
                                      w.session_id, w.seq, w.id, w.client_msg_id, w.kind, w.content,
                                      coalesce(w.sender_id, w.user_id::text), w.role, w.sender_name,
                                      CASE WHEN w.created_at = now() THEN v_now
                                           ELSE switchboard_webhook_time(w.created_at) END,
                                      w.attachments),
                                  ',"session":{"id":"', w.session_id, '","version":', v.version, '}}')),
                       now()
                  FROM wanted w
                 CROSS JOIN LATERAL (SELECT s.version FROM chat_sessions s WHERE s.id = w.session_id LIMIT 1) v
                RETURNING webhook_events.id, webhook_events.workspace_id, webhook_events.type
            ),
            deliveries AS (
                INSERT INTO webhook_deliveries (workspace_id, event_id, endpoint_id, next_attempt_at)
                SELECT ev.workspace_id, ev.id, h.id, now()
                  FROM events ev JOIN hooks h ON h.workspace_id = ev.workspace_id AND ev.type = ANY (h.events)
            )
            SELECT count(*) INTO v_written FROM events;
            RETURN v_written;
        END;
        $$;

        """#

    /// `session.created`, `session.updated` and `session.deleted` from
    /// whatever statement makes the change (the writer's reopen and queue
    /// entry, `switchboard_change_session`, routing passes, the API, another
    /// application): a trigger, so that no path can forget, now or later.
    ///
    /// Updates fire it only when something an event reports differs
    /// (status, assignment, title, the wait, contact, deletion), decided by
    /// the trigger's WHEN clause without calling anything: the writer's
    /// per-batch update of `last_seq` passes it by. The function builds the
    /// session's JSON only after it knows that an endpoint wants the type.
    static let sessionTriggers =
        #"""
        CREATE FUNCTION switchboard_webhook_session_changed() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
        DECLARE
            v_type text := CASE WHEN TG_OP = 'INSERT' THEN 'session.created'
                                WHEN OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL THEN 'session.deleted'
                                ELSE 'session.updated' END;
        BEGIN
            IF EXISTS (SELECT 1 FROM webhook_endpoints e
                        WHERE e.workspace_id = NEW.workspace_id AND e.enabled AND e.deleted_at IS NULL
                          AND v_type = ANY (e.events)) THEN
                PERFORM switchboard_webhook_emit(
                    NEW.workspace_id, v_type, '{"session":' || switchboard_webhook_session(NEW) || '}');
            END IF;
            RETURN NULL;
        END;
        $$;

        CREATE TRIGGER chat_sessions_webhooks_created
            AFTER INSERT ON chat_sessions
            FOR EACH ROW EXECUTE FUNCTION switchboard_webhook_session_changed();
        CREATE TRIGGER chat_sessions_webhooks_updated
            AFTER UPDATE ON chat_sessions
            FOR EACH ROW
            WHEN (OLD.status IS DISTINCT FROM NEW.status
                  OR OLD.assigned_operator_id IS DISTINCT FROM NEW.assigned_operator_id
                  OR OLD.assigned_operator_name IS DISTINCT FROM NEW.assigned_operator_name
                  OR OLD.title IS DISTINCT FROM NEW.title
                  OR OLD.waiting_since IS DISTINCT FROM NEW.waiting_since
                  OR OLD.contact IS DISTINCT FROM NEW.contact
                  OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at)
            EXECUTE FUNCTION switchboard_webhook_session_changed();

        """#
}
