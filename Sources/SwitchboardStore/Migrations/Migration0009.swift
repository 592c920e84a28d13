/// Routing (issue 32, docs/routing.md): operator presence, the queue of
/// waiting sessions, and what automatic assignment needs to decide in
/// PostgreSQL across every node.
///
/// - `operators`: the status an operator chose (`online`, `away`,
///   `offline`, outliving its connections; `status_changed_at` is NULL
///   until it chooses one, so an operator that never did is not taken for
///   one that signed off), its `capacity` (NULL: the gateway's
///   `routing.max_sessions_per_operator`), `last_assigned_at` (round robin,
///   least-busy ties) and `connected_until`: the moment it stops counting as
///   connected, pushed to now + grace by every heartbeat of a node holding
///   one of its connections, and on connect and disconnect.
/// - `gateway_nodes` and `operator_connections`: each node's own view of
///   the operators connected to it, rewritten by it every heartbeat, so
///   that presence can say who is connected anywhere. Only the gateway (the
///   owner) reads nodes; connections are confined like `operators`.
/// - `chat_sessions`: `waiting_since` (set by the writer's function when a
///   visitor's message lands on an open, unassigned session without one;
///   kept on assignment, so that a requeue puts the session back at the
///   head of the queue in its original order; reset by a visitor's reopen
///   so that the reopening message starts a new wait), `first_assigned_at`
///   (wait-time analytics, set by a trigger on whichever path assigns), and
///   `contact` (what a visitor said about itself, such as an email).
///   Queued = open, unassigned, waiting, live: `idx_chat_sessions_queue`
///   holds exactly those, in queue order. Open unassigned sessions that
///   already have a visitor's message join the queue at that message.
/// - The writer's function (otherwise as version 8) sets `waiting_since`
///   and returns it and `contact` with the session's state.
enum Migration0009 {
    static let migration = Migration(version: 9, name: "routing", sql: sql, down: down)

    private static let sql =
        #"""
        ALTER TABLE operators
            ADD COLUMN status text NOT NULL DEFAULT 'offline' CHECK (status IN ('online', 'away', 'offline')),
            ADD COLUMN status_changed_at timestamptz,
            ADD COLUMN capacity int CHECK (capacity IS NULL OR capacity BETWEEN 0 AND 10000),
            ADD COLUMN last_assigned_at timestamptz,
            ADD COLUMN connected_until timestamptz;

        CREATE TABLE gateway_nodes (
            node_id text PRIMARY KEY CHECK (octet_length(node_id) BETWEEN 1 AND 128),
            heartbeat_at timestamptz NOT NULL DEFAULT now()
        );
        -- No policy: node names are the deployment's, never a workspace's.
        ALTER TABLE gateway_nodes ENABLE ROW LEVEL SECURITY;

        CREATE TABLE operator_connections (
            node_id text NOT NULL REFERENCES gateway_nodes (node_id) ON DELETE CASCADE,
            workspace_id uuid NOT NULL,
            operator_id text NOT NULL,
            connections int NOT NULL CHECK (connections > 0),
            PRIMARY KEY (node_id, workspace_id, operator_id),
            FOREIGN KEY (workspace_id, operator_id) REFERENCES operators (workspace_id, id) ON DELETE CASCADE
        );
        CREATE INDEX idx_operator_connections_operator ON operator_connections (workspace_id, operator_id);
        ALTER TABLE operator_connections ENABLE ROW LEVEL SECURITY;
        CREATE POLICY operator_connections_staff ON operator_connections FOR ALL
            USING (workspace_id::text = switchboard_setting('switchboard.workspace_id')
                   AND switchboard_setting('switchboard.role') IN ('operator', 'admin'))
            WITH CHECK (workspace_id::text = switchboard_setting('switchboard.workspace_id')
                        AND switchboard_setting('switchboard.role') IN ('operator', 'admin'));

        ALTER TABLE chat_sessions
            ADD COLUMN waiting_since timestamptz,
            ADD COLUMN first_assigned_at timestamptz,
            ADD COLUMN contact jsonb
                CHECK (contact IS NULL OR (jsonb_typeof(contact) = 'object' AND octet_length(contact::text) <= 4096));

        -- The queue, oldest first. Its columns and predicate change only when a
        -- session starts waiting or is assigned, so the writer's per-batch
        -- update stays HOT (migration 2).
        CREATE INDEX idx_chat_sessions_queue ON chat_sessions (workspace_id, waiting_since, id)
            WHERE status = 'open' AND assigned_operator_id IS NULL AND waiting_since IS NOT NULL
                  AND deleted_at IS NULL;

        -- Whichever statement assigns a session first (routing, session.assign,
        -- PATCH) stamps it. A trigger on that one column: the writer's update
        -- never names it, so it never fires there (migration 7's reason to keep
        -- triggers off the writer's path does not apply).
        CREATE FUNCTION switchboard_first_assigned() RETURNS trigger
            LANGUAGE plpgsql AS $$
            BEGIN
                NEW.first_assigned_at := now();
                RETURN NEW;
            END;
            $$;
        CREATE TRIGGER chat_sessions_first_assigned
            BEFORE UPDATE OF assigned_operator_id ON chat_sessions
            FOR EACH ROW
            WHEN (NEW.assigned_operator_id IS NOT NULL AND OLD.first_assigned_at IS NULL
                  AND NEW.first_assigned_at IS NULL)
            EXECUTE FUNCTION switchboard_first_assigned();

        -- What was assigned before: from its first assigned event, else its last
        -- change. Not a change of the session, so its updated_at stays.
        ALTER TABLE chat_sessions DISABLE TRIGGER chat_sessions_updated_at;
        UPDATE chat_sessions s
           SET first_assigned_at = coalesce(
                   (SELECT min(c.created_at) FROM chats c
                     WHERE c.session_id = s.id AND c.kind = 'event' AND c.meta ->> 'action' = 'assigned'),
                   s.updated_at)
         WHERE s.assigned_operator_id IS NOT NULL;
        ALTER TABLE chat_sessions ENABLE TRIGGER chat_sessions_updated_at;
        -- Who is waiting now: queued from their first message, oldest first.
        UPDATE chat_sessions
           SET waiting_since = first_visitor_message_at, version = version + 1
         WHERE status = 'open' AND assigned_operator_id IS NULL AND deleted_at IS NULL
           AND first_visitor_message_at IS NOT NULL;

        """# + reopenFunction + "\n\n" + appendFunction

    /// Migration 8's reopen, which also ends the session's earlier wait.
    private static let reopenFunction = SQLText.replacing(
        "assigned_operator_name = NULL,", with: "assigned_operator_name = NULL, waiting_since = NULL,", count: 1,
        in: SQLText.replacing(
            "CREATE FUNCTION", with: "CREATE OR REPLACE FUNCTION", count: 1,
            in: SQLText.function("switchboard_reopen_for_visitors", in: Migration0008.migration.sql)))

    /// Migration 8's writer function with `waiting_since`: set in both
    /// paths' session update, and returned with `contact` in two last
    /// columns of the session's state (NULL on event rows), so that the
    /// `session.updated` a message causes is the whole session.
    private static let appendFunction: String = {
        var sql = SQLText.function("switchboard_append_messages", in: Migration0008.migration.sql)
        sql = SQLText.replacing(
            "event_session uuid, meta text)",
            with: "event_session uuid, meta text, session_waiting_since timestamptz, session_contact text)", count: 1,
            in: sql)
        // After the reopen (an earlier statement), so a reopened session waits from this message.
        sql = SQLText.replacing(
            "version = s.version + 1,\n",
            with: "version = s.version + 1, waiting_since = CASE WHEN s.waiting_since IS NULL AND c.has_visitor "
                + "AND s.status = 'open' AND s.assigned_operator_id IS NULL THEN now() ELSE s.waiting_since END,\n",
            count: 2, in: sql)
        sql = SQLText.replacing("s.updated_at\n", with: "s.updated_at, s.waiting_since, s.contact\n", count: 2, in: sql)
        sql = SQLText.replacing(
            "b.updated_at, NULL::uuid, NULL::text",
            with: "b.updated_at, NULL::uuid, NULL::text, b.waiting_since, b.contact::text", count: 2, in: sql)
        sql = SQLText.replacing(
            "e.session_id, e.meta\n", with: "e.session_id, e.meta, NULL::timestamptz, NULL::text\n", count: 2, in: sql)
        return "DROP FUNCTION switchboard_append_messages(uuid[], text[], text[], text[], text[], text[], text[]);\n"
            + sql
    }()

    // Down: version 8's functions, and none of the above (presence,
    // capacities, queue times and contacts are deleted).
    private static let down =
        #"""
        DROP FUNCTION IF EXISTS switchboard_append_messages(uuid[], text[], text[], text[], text[], text[], text[]);
        DROP TRIGGER IF EXISTS chat_sessions_first_assigned ON chat_sessions;
        DROP FUNCTION IF EXISTS switchboard_first_assigned();
        DROP INDEX IF EXISTS idx_chat_sessions_queue;
        ALTER TABLE chat_sessions
            DROP COLUMN IF EXISTS waiting_since,
            DROP COLUMN IF EXISTS first_assigned_at,
            DROP COLUMN IF EXISTS contact;
        DROP TABLE IF EXISTS operator_connections;
        DROP TABLE IF EXISTS gateway_nodes;
        ALTER TABLE operators
            DROP COLUMN IF EXISTS status,
            DROP COLUMN IF EXISTS status_changed_at,
            DROP COLUMN IF EXISTS capacity,
            DROP COLUMN IF EXISTS last_assigned_at,
            DROP COLUMN IF EXISTS connected_until;

        """#
        + SQLText.replacing(
            "CREATE FUNCTION", with: "CREATE OR REPLACE FUNCTION", count: 1,
            in: SQLText.function("switchboard_reopen_for_visitors", in: Migration0008.migration.sql)) + "\n\n"
        + SQLText.function("switchboard_append_messages", in: Migration0008.migration.sql)
}
