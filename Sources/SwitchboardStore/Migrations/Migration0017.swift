/// Visitor context (issue 35, docs/protocol.md "The agent's desk"):
/// `chat_sessions.context`, what the widget reported of its page when the
/// session was opened (page URL and title, referrer, locale, time zone, user
/// agent), as the gateway validated it. Self-reported, so kept apart from
/// `contact`, whose `verified` member holds the token's signed claims.
///
/// Online on a table of any size: a nullable column without a default is a
/// change to the catalog alone (no rewrite, no scan; the ACCESS EXCLUSIVE
/// lock is held for that instant). Written once, at creation: no index.
enum Migration0017 {
    static let migration = Migration(version: 17, name: "session_context", sql: sql, down: down)

    private static let sql =
        #"""
        ALTER TABLE chat_sessions ADD COLUMN context jsonb;

        """#

    // Down: every session's context is deleted.
    private static let down =
        #"""
        ALTER TABLE chat_sessions DROP COLUMN context;

        """#
}
