/// Sessions (the migration guide's `20260120_create_chat_sessions.sql`, plus
/// what the protocol needs): the guide's columns and index names, soft delete,
/// the `update_updated_at` trigger, and row-level security.
///
/// Row-level security confines database roles other than the owner (the
/// gateway connects as the owner, which the policies do not bind) to one
/// workspace, and visitors to their own sessions, through session settings:
///
///     SET switchboard.workspace_id = '...'; SET switchboard.role = 'visitor';
///     SET switchboard.user_id = 'v-42';
///
/// With the settings absent, the policies match nothing. The UPDATE policy
/// checks the new row as strictly as the old one, so a visitor cannot hand its
/// session to another visitor (and so plant one in their list).
///
/// Every stored batch updates each of its sessions (`last_seq`, and so
/// `updated_at` through the trigger). No index covers a column that update
/// changes, and the table leaves 30% of each page free, so the update is HOT:
/// no new index entries, and the old versions are pruned in place.
/// `idx_chat_sessions_active` therefore orders by `created_at` (fixed, which
/// also gives the inbox a stable cursor), not by `updated_at`.
enum Migration0002 {
    static let migration = Migration(
        version: 2, name: "create_chat_sessions",
        sql: #"""
            CREATE TABLE chat_sessions (
                id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
                workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
                user_id text,
                title text NOT NULL DEFAULT 'New chat',
                status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'assigned', 'closed')),
                assigned_operator_id text,
                assigned_operator_name text,
                last_seq bigint NOT NULL DEFAULT 0 CHECK (last_seq >= 0),
                first_visitor_message_at timestamptz,
                first_operator_reply_at timestamptz,
                closed_at timestamptz,
                created_at timestamptz NOT NULL DEFAULT now(),
                updated_at timestamptz NOT NULL DEFAULT now(),
                deleted_at timestamptz,
                -- Target of chats' (session_id, workspace_id) key (migration 3).
                CONSTRAINT chat_sessions_id_workspace_key UNIQUE (id, workspace_id),
                CHECK (user_id IS NULL OR octet_length(user_id) <= 128)
            ) WITH (fillfactor = 70);

            CREATE INDEX idx_chat_sessions_workspace_id ON chat_sessions (workspace_id);
            CREATE INDEX idx_chat_sessions_user_id ON chat_sessions (user_id);
            CREATE INDEX idx_chat_sessions_created_at ON chat_sessions (created_at DESC);
            -- The inbox: live sessions of a workspace, newest first, (created_at, id) as the cursor.
            CREATE INDEX idx_chat_sessions_active ON chat_sessions (workspace_id, created_at DESC, id)
                WHERE deleted_at IS NULL;

            CREATE TRIGGER chat_sessions_updated_at
                BEFORE UPDATE ON chat_sessions
                FOR EACH ROW EXECUTE FUNCTION update_updated_at();

            ALTER TABLE chat_sessions ENABLE ROW LEVEL SECURITY;

            CREATE FUNCTION switchboard_setting(name text) RETURNS text
                LANGUAGE sql STABLE AS $$ SELECT NULLIF(current_setting(name, true), '') $$;

            CREATE POLICY chat_sessions_select ON chat_sessions FOR SELECT
                USING (workspace_id::text = switchboard_setting('switchboard.workspace_id')
                       AND (switchboard_setting('switchboard.role') IN ('operator', 'admin')
                            OR user_id = switchboard_setting('switchboard.user_id')));
            CREATE POLICY chat_sessions_insert ON chat_sessions FOR INSERT
                WITH CHECK (workspace_id::text = switchboard_setting('switchboard.workspace_id')
                            AND (switchboard_setting('switchboard.role') IN ('operator', 'admin')
                                 OR user_id = switchboard_setting('switchboard.user_id')));
            CREATE POLICY chat_sessions_update ON chat_sessions FOR UPDATE
                USING (workspace_id::text = switchboard_setting('switchboard.workspace_id')
                       AND (switchboard_setting('switchboard.role') IN ('operator', 'admin')
                            OR user_id = switchboard_setting('switchboard.user_id')))
                WITH CHECK (workspace_id::text = switchboard_setting('switchboard.workspace_id')
                            AND (switchboard_setting('switchboard.role') IN ('operator', 'admin')
                                 OR user_id = switchboard_setting('switchboard.user_id')));
            CREATE POLICY chat_sessions_delete ON chat_sessions FOR DELETE
                USING (workspace_id::text = switchboard_setting('switchboard.workspace_id')
                       AND switchboard_setting('switchboard.role') IN ('operator', 'admin'));
            """#,
        // Down: the guide's rollback steps 2 and 3. Deletes every session. No
        // CASCADE (unlike the guide): by the time this runs, down 3 and 4 have
        // removed our references to the table, so anything CASCADE would still
        // remove belongs to another application and down should fail naming it.
        down: #"""
            DROP TABLE IF EXISTS chat_sessions;
            DROP FUNCTION IF EXISTS switchboard_setting(text);
            DROP INDEX IF EXISTS idx_chat_sessions_workspace_id;
            DROP INDEX IF EXISTS idx_chat_sessions_user_id;
            DROP INDEX IF EXISTS idx_chat_sessions_created_at;
            DROP INDEX IF EXISTS idx_chat_sessions_active;
            """#)
}
