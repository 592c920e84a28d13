/// Satisfaction surveys and what webhooks tell of a session (issue 35):
///
/// - `chat_sessions.csat`: the visitor's rating of a closed conversation,
///   `{"rating": 1-5, "comment"?: text, "created_at"}`, set once (the
///   gateway's `csat` frame; `switchboard_record_csat` below).
/// - `workspaces.csat_enabled` (default true): the workspace's switch for the
///   survey. A constant default and a nullable column are catalog changes
///   alone on PostgreSQL 11 and later: online on tables of any size.
/// - `switchboard_webhook_session`, the session object of `session.*`
///   events: its `last_message` now skips private notes too (it skipped
///   events only, so a `session.updated` after a note carried the note's
///   text to every receiver), and it carries `context` and `csat`.
/// - The update trigger also fires when `csat` changes: a rating is a
///   `session.updated`.
enum Migration0018 {
    static let migration = Migration(version: 18, name: "csat", sql: sql, down: down)

    private static let sql =
        #"""
        ALTER TABLE chat_sessions ADD COLUMN csat jsonb;
        ALTER TABLE workspaces ADD COLUMN csat_enabled boolean NOT NULL DEFAULT true;

        """# + session + "\n" + trigger(csat: true)

    private static let original = SQLText.function("switchboard_webhook_session", in: Migration0013.outboxFunctions)

    private static let session =
        SQLText.replacing(
            "CREATE FUNCTION", with: "CREATE OR REPLACE FUNCTION", count: 1,
            in: SQLText.replacing(
                "WHERE l.session_id = s.id AND l.kind <> 'event'",
                with: "WHERE l.session_id = s.id AND l.kind NOT IN ('event', 'note')", count: 1,
                in: SQLText.replacing(
                    "|| coalesce(',\"contact\":' || s.contact::text, '')",
                    with: "|| coalesce(',\"contact\":' || s.contact::text, '')\n"
                        + "                   || coalesce(',\"context\":' || s.context::text, '')\n"
                        + "                   || coalesce(',\"csat\":' || s.csat::text, '')",
                    count: 1, in: original))) + "\n"

    private static func trigger(csat: Bool) -> String {
        """
        DROP TRIGGER chat_sessions_webhooks_updated ON chat_sessions;
        CREATE TRIGGER chat_sessions_webhooks_updated
            AFTER UPDATE ON chat_sessions
            FOR EACH ROW
            WHEN (OLD.status IS DISTINCT FROM NEW.status
                  OR OLD.assigned_operator_id IS DISTINCT FROM NEW.assigned_operator_id
                  OR OLD.assigned_operator_name IS DISTINCT FROM NEW.assigned_operator_name
                  OR OLD.title IS DISTINCT FROM NEW.title
                  OR OLD.waiting_since IS DISTINCT FROM NEW.waiting_since
                  OR OLD.contact IS DISTINCT FROM NEW.contact\(csat ? "\n          OR OLD.csat IS DISTINCT FROM NEW.csat" : "")
                  OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at)
            EXECUTE FUNCTION switchboard_webhook_session_changed();

        """
    }

    // Down: migration 13's session object and trigger; every rating and the switch are deleted.
    private static let down =
        trigger(csat: false)
        + SQLText.replacing("CREATE FUNCTION", with: "CREATE OR REPLACE FUNCTION", count: 1, in: original) + "\n"
            + #"""
            ALTER TABLE workspaces DROP COLUMN csat_enabled;
            ALTER TABLE chat_sessions DROP COLUMN csat;

            """#
}
