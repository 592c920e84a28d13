/// Messages belong to sessions (the migration guide's
/// `20260120_add_session_id_to_chats.sql`, plus the protocol's columns).
///
/// Legacy adoption: messages stored before sessions existed are moved, per
/// workspace and in their original order (created_at, then id), into one
/// closed 'Legacy Chat' session; only then do the new columns become NOT NULL.
/// Legacy columns stay: `content` is the message body, `role` the sender's role,
/// `user_id` the legacy sender. No data is dropped; the legacy
/// workspace_id -> workspaces key is replaced by the stricter
/// (session_id, workspace_id) -> chat_sessions key (see below), and
/// migrating down restores it.
enum Migration0003 {
    static let migration = Migration(
        version: 3, name: "add_session_id_to_chats",
        sql: #"""
            ALTER TABLE chats ADD COLUMN session_id uuid;
            ALTER TABLE chats ADD COLUMN seq bigint;
            ALTER TABLE chats ADD COLUMN client_msg_id text;
            ALTER TABLE chats ADD COLUMN sender_id text;
            ALTER TABLE chats ADD COLUMN sender_name text;
            ALTER TABLE chats ADD COLUMN kind text NOT NULL DEFAULT 'text';

            DO $$
            DECLARE
                legacy record;
                legacy_session uuid;
                adopted bigint;
            BEGIN
                FOR legacy IN
                    SELECT workspace_id, min(created_at) AS first_at, max(created_at) AS last_at
                    FROM chats WHERE session_id IS NULL
                    GROUP BY workspace_id ORDER BY workspace_id
                LOOP
                    INSERT INTO chat_sessions (workspace_id, title, status, created_at, closed_at)
                    VALUES (legacy.workspace_id, 'Legacy Chat', 'closed', legacy.first_at, legacy.last_at)
                    RETURNING id INTO legacy_session;

                    WITH ordered AS (
                        SELECT id, row_number() OVER (ORDER BY created_at, id) AS n
                        FROM chats
                        WHERE workspace_id = legacy.workspace_id AND session_id IS NULL
                    )
                    UPDATE chats c
                       SET session_id = legacy_session,
                           seq = o.n,
                           client_msg_id = 'legacy-' || c.id::text,
                           sender_id = c.user_id::text
                      FROM ordered o
                     WHERE c.id = o.id;
                    GET DIAGNOSTICS adopted = ROW_COUNT;

                    UPDATE chat_sessions SET last_seq = adopted WHERE id = legacy_session;
                    RAISE NOTICE 'Created legacy session % for workspace % with % messages',
                        legacy_session, legacy.workspace_id, adopted;
                END LOOP;
            END $$;

            ALTER TABLE chats ALTER COLUMN session_id SET NOT NULL;
            ALTER TABLE chats ALTER COLUMN seq SET NOT NULL;
            ALTER TABLE chats ALTER COLUMN client_msg_id SET NOT NULL;
            ALTER TABLE chats ADD CONSTRAINT chats_session_seq_key UNIQUE (session_id, seq);
            ALTER TABLE chats ADD CONSTRAINT chats_session_client_msg_id_key UNIQUE (session_id, client_msg_id);
            ALTER TABLE chats ADD CONSTRAINT chats_seq_positive CHECK (seq >= 1);

            -- One key where the legacy layout had workspace_id -> workspaces: a
            -- message's session must exist and belong to the message's workspace,
            -- which exists through chat_sessions' own key. Stricter than the two
            -- single-column keys, and half the per-row checks on the writer's hot
            -- path. NO ACTION on delete keeps the legacy protection: a session or
            -- workspace that still has messages cannot be deleted out from under them.
            ALTER TABLE chats ADD CONSTRAINT chats_session_workspace_fkey
                FOREIGN KEY (session_id, workspace_id) REFERENCES chat_sessions (id, workspace_id)
                ON UPDATE CASCADE;
            DO $$
            DECLARE
                legacy_key record;
            BEGIN
                FOR legacy_key IN
                    SELECT conname FROM pg_constraint
                     WHERE conrelid = 'chats'::regclass AND contype = 'f'
                       AND confrelid = 'workspaces'::regclass
                LOOP
                    EXECUTE format('ALTER TABLE chats DROP CONSTRAINT %I', legacy_key.conname);
                END LOOP;
            END $$;

            CREATE INDEX idx_chats_session_id ON chats (session_id);
            CREATE INDEX idx_chats_session_created ON chats (session_id, created_at);
            """#,
        // Down: the guide's rollback step 1 (and its chats indexes). Messages
        // stay, in the legacy layout (workspace_id, role, content); what links
        // them to sessions (session, seq, client ids, sender names, kind) is
        // deleted. The sessions are deleted too, after the column is gone (its
        // ON DELETE CASCADE would otherwise take the messages): without their
        // messages they cannot be reconnected, and migrating up again adopts
        // every message into one Legacy Chat per workspace, as for a legacy
        // database.
        down: #"""
            DROP INDEX IF EXISTS idx_chats_session_created;
            DROP INDEX IF EXISTS idx_chats_session_id;
            ALTER TABLE chats
                DROP COLUMN IF EXISTS session_id,
                DROP COLUMN IF EXISTS seq,
                DROP COLUMN IF EXISTS client_msg_id,
                DROP COLUMN IF EXISTS sender_id,
                DROP COLUMN IF EXISTS sender_name,
                DROP COLUMN IF EXISTS kind;
            -- Dropping session_id dropped the combined key; restore the legacy one.
            ALTER TABLE chats ADD CONSTRAINT chats_workspace_id_fkey
                FOREIGN KEY (workspace_id) REFERENCES workspaces (id);
            DELETE FROM chat_sessions;
            """#)
}
