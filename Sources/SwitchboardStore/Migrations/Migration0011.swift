/// Attachments (issue 33, docs/attachments.md): one `attachments` row per
/// stored file, and, with PostgreSQL storage, its bytes (and its thumbnail's)
/// in `attachment_chunks` rows of up to 256 KiB.
///
/// An attachment exists only once its row is committed: chunks are written
/// (autocommitted) while the upload streams in, before the row, so they carry
/// no foreign key; chunks whose row never came are the orphan purge's.
/// `idx_attachments_orphans` serves that purge (uploads never sent, oldest
/// first), `idx_attachments_session` the per-session quota and listing.
///
/// Row-level security as in migrations 2 and 10: staff of the workspace see
/// and change its attachments; a visitor sees those of its own sessions
/// (whoever uploaded them) and may add its own upload to one of them. A chunk
/// is visible exactly when its attachment is (the policy's subquery is itself
/// under the attachments policies), so a chunk with no row is visible to no
/// one but the owner. The visitor policy reads `chat_sessions` under that
/// table's own policies: a confined role needs SELECT on it.
enum Migration0011 {
    static let migration = Migration(
        version: 11, name: "attachments",
        sql: #"""
            CREATE TABLE attachments (
                id uuid PRIMARY KEY,
                workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
                session_id uuid NOT NULL,
                uploader_role text NOT NULL CHECK (uploader_role IN ('visitor', 'operator', 'admin')),
                uploader_id text NOT NULL CHECK (octet_length(uploader_id) <= 128),
                filename text NOT NULL CHECK (octet_length(filename) BETWEEN 1 AND 255),
                content_type text NOT NULL,
                size bigint NOT NULL CHECK (size >= 0),
                sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
                width integer,
                height integer,
                storage text NOT NULL CHECK (storage IN ('postgres', 'filesystem')),
                thumbnail_size bigint,
                message_id uuid,
                created_at timestamptz NOT NULL DEFAULT now(),
                sent_at timestamptz,
                FOREIGN KEY (session_id, workspace_id) REFERENCES chat_sessions (id, workspace_id) ON DELETE CASCADE
            );
            CREATE INDEX idx_attachments_session ON attachments (session_id, created_at);
            CREATE INDEX idx_attachments_orphans ON attachments (created_at) WHERE sent_at IS NULL;

            CREATE TABLE attachment_chunks (
                attachment_id uuid NOT NULL,
                variant smallint NOT NULL,
                n integer NOT NULL,
                data bytea NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (attachment_id, variant, n)
            );
            -- Out of line and uncompressed: images and PDFs are compressed already (pglz would
            -- spend CPU to gain nothing), and substring() of an uncompressed value fetches only
            -- the TOAST pieces a range read needs.
            ALTER TABLE attachment_chunks ALTER COLUMN data SET STORAGE EXTERNAL;

            ALTER TABLE attachments ENABLE ROW LEVEL SECURITY;
            CREATE POLICY attachments_staff ON attachments FOR ALL
                USING (workspace_id::text = switchboard_setting('switchboard.workspace_id')
                       AND switchboard_setting('switchboard.role') IN ('operator', 'admin'))
                WITH CHECK (workspace_id::text = switchboard_setting('switchboard.workspace_id')
                            AND switchboard_setting('switchboard.role') IN ('operator', 'admin'));
            CREATE POLICY attachments_visitor_select ON attachments FOR SELECT
                USING (workspace_id::text = switchboard_setting('switchboard.workspace_id')
                       AND switchboard_setting('switchboard.role') = 'visitor'
                       AND EXISTS (SELECT 1 FROM chat_sessions s
                                    WHERE s.id = attachments.session_id AND s.workspace_id = attachments.workspace_id
                                      AND s.user_id = switchboard_setting('switchboard.user_id')));
            CREATE POLICY attachments_visitor_insert ON attachments FOR INSERT
                WITH CHECK (workspace_id::text = switchboard_setting('switchboard.workspace_id')
                            AND switchboard_setting('switchboard.role') = 'visitor'
                            AND uploader_role = 'visitor'
                            AND uploader_id = switchboard_setting('switchboard.user_id')
                            AND EXISTS (SELECT 1 FROM chat_sessions s
                                         WHERE s.id = attachments.session_id AND s.workspace_id = attachments.workspace_id
                                           AND s.user_id = switchboard_setting('switchboard.user_id')));

            ALTER TABLE attachment_chunks ENABLE ROW LEVEL SECURITY;
            CREATE POLICY attachment_chunks_select ON attachment_chunks FOR SELECT
                USING (EXISTS (SELECT 1 FROM attachments a WHERE a.id = attachment_chunks.attachment_id));
            CREATE POLICY attachment_chunks_staff ON attachment_chunks FOR ALL
                USING (EXISTS (SELECT 1 FROM attachments a
                                WHERE a.id = attachment_chunks.attachment_id
                                  AND a.workspace_id::text = switchboard_setting('switchboard.workspace_id')
                                  AND switchboard_setting('switchboard.role') IN ('operator', 'admin')))
                WITH CHECK (EXISTS (SELECT 1 FROM attachments a
                                     WHERE a.id = attachment_chunks.attachment_id
                                       AND a.workspace_id::text = switchboard_setting('switchboard.workspace_id')
                                       AND switchboard_setting('switchboard.role') IN ('operator', 'admin')));
            """#,
        // Down: deletes every attachment stored in PostgreSQL (files of
        // filesystem storage stay on disk, unreachable).
        down: #"""
            DROP TABLE IF EXISTS attachment_chunks;
            DROP TABLE IF EXISTS attachments;
            """#)
}
