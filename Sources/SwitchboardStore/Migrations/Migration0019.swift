/// Full-text search over message bodies (issue 35, docs/protocol.md "The
/// agent's desk", docs/database.md "Search"): a GIN index over
/// `to_tsvector('simple', content)` of every message but the system lines,
/// and the workspace's messages in newest-first order.
///
/// An expression index rather than a stored generated `tsvector` column: on
/// PostgreSQL 15 adding a stored generated column rewrites the whole table
/// under an ACCESS EXCLUSIVE lock (every write waits for the rewrite), and the
/// column would store each message's words a second time in the heap. The
/// index holds the same vectors and serves the same `@@` queries, written
/// with the same expression.
///
/// The GIN index finds the messages holding a rare word (an order number, a
/// name) at once, but a common word ("order", "refund") matches a large share
/// of a workspace, and sorting every match to show the newest twenty would
/// read them all. `idx_chats_workspace_recent` lets a search test the
/// workspace's newest messages one by one first (`ChatQueries.search`;
/// docs/database.md, "Search", has both ways and their times).
///
/// `simple`: words as written, lower-cased, no stemming and no stop words, the
/// same for every language a workspace's visitors write in; an order number
/// or a name is found as typed.
///
/// Online on a table of any size: both built `CONCURRENTLY`, which PostgreSQL runs
/// only outside a transaction, so the statements run alone
/// (`Migration.Mode.eachStatementAlone`). A build that failed part way leaves
/// an invalid index behind: the statement before each build drops it, so
/// running the migration again starts clean.
enum Migration0019 {
    static let migration = Migration(
        version: 19, name: "message_search", statementsAlone: up, down: down)

    /// Also migration 20's `down`, which builds these indexes again.
    static let up = [
        "DROP INDEX CONCURRENTLY IF EXISTS idx_chats_search",
        """
        CREATE INDEX CONCURRENTLY idx_chats_search ON chats
            USING gin (to_tsvector('simple'::regconfig, content)) WHERE kind <> 'event'
        """,
        "DROP INDEX CONCURRENTLY IF EXISTS idx_chats_workspace_recent",
        """
        CREATE INDEX CONCURRENTLY idx_chats_workspace_recent ON chats
            (workspace_id, created_at DESC, id DESC) WHERE kind <> 'event'
        """,
    ]

    // Down: the indexes go; no data is lost.
    private static let down = [
        "DROP INDEX CONCURRENTLY IF EXISTS idx_chats_workspace_recent",
        "DROP INDEX CONCURRENTLY IF EXISTS idx_chats_search",
    ]
}
