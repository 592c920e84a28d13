/// Canned replies (issue 35, docs/protocol.md "The agent's desk"): a
/// workspace's saved answers, each under a shortcut the console offers after
/// `/`. The body is stored as written, placeholders (`{{visitor.name}}`,
/// `{{operator.name}}`) included: the console fills them for the
/// conversation at hand.
///
/// A shortcut is unique within its workspace (the key that the list reads in
/// order, too). Deleting one removes it: nothing refers to a canned reply,
/// and a message sent from one is an ordinary message.
///
/// Row-level security as in migration 10: the operators and admins of the
/// workspace see and change its replies, nobody else.
enum Migration0016 {
    static let migration = Migration(version: 16, name: "canned_replies", sql: sql, down: down)

    private static let sql =
        #"""
        CREATE TABLE canned_replies (
            id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
            workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
            shortcut text COLLATE "C" NOT NULL CHECK (shortcut ~ '^[a-z0-9][a-z0-9_-]{0,31}$'),
            body text NOT NULL CHECK (octet_length(body) BETWEEN 1 AND 4096),
            created_by text NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now(),
            updated_at timestamptz NOT NULL DEFAULT now(),
            CONSTRAINT canned_replies_shortcut_unique UNIQUE (workspace_id, shortcut)
        );
        CREATE TRIGGER canned_replies_updated_at
            BEFORE UPDATE ON canned_replies
            FOR EACH ROW EXECUTE FUNCTION update_updated_at();

        ALTER TABLE canned_replies ENABLE ROW LEVEL SECURITY;
        CREATE POLICY canned_replies_staff ON canned_replies FOR ALL
            USING (workspace_id::text = switchboard_setting('switchboard.workspace_id')
                   AND switchboard_setting('switchboard.role') IN ('operator', 'admin'))
            WITH CHECK (workspace_id::text = switchboard_setting('switchboard.workspace_id')
                        AND switchboard_setting('switchboard.role') IN ('operator', 'admin'));

        """#

    // Down: every canned reply is deleted.
    private static let down =
        #"""
        DROP TABLE canned_replies;

        """#
}
