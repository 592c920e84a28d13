import SwitchboardChat
import SwitchboardPostgres

/// Session lifecycle: create and look up (changes: `changeSession`). A write is one
/// statement whose RETURNING row is joined to the last message, so the caller
/// gets the session exactly as the write left it (updated_at included: the
/// trigger runs before RETURNING) without a second round trip.
extension ChatQueries {
    /// Creates the workspace row if missing (INSERT ... ON CONFLICT DO NOTHING, name "Workspace <id>"),
    /// then the session (title default "New chat"), status open, last_seq 0.
    ///
    /// One statement: the foreign key check on chat_sessions runs at its end and
    /// sees the workspace the CTE inserted. Not retried after a lost connection:
    /// the session may already exist, and a retry would open a second one.
    ///
    /// `context`: the widget's report (`SessionContext`, JSON text); `contact`: the token's verified
    /// contact (`Identity.contact`), stored as the session's `contact.verified`.
    ///
    /// Prepared, as every new visitor's first send runs it: planned afresh
    /// it cost PostgreSQL 0.13-0.16 ms a call, most of its own 0.2-0.3 ms.
    public func createSession(
        workspaceID: String, visitorID: String, title: String?, context: String? = nil, contact: String? = nil
    ) throws(QueryError)
        -> SessionInfo
    {
        let result = try run(
            prepared: "session_create", Self.createSessionStatement, [workspaceID, visitorID, title, context, contact],
            retryable: false)
        guard result.rowCount == 1 else { throw .failed("creating a session returned \(result.rowCount) rows") }
        return try RowDecoding.session(result, 0)
    }

    /// nil when no such session or it is soft-deleted. Includes lastMessage (the row with seq = last_seq, if any).
    ///
    /// Prepared: every subscribe reads its session, and planning this
    /// statement afresh cost PostgreSQL 0.14-0.16 ms a call against 0.03 ms to
    /// run it (`pg_stat_statements`, docs/writer.md). Its plan is the primary
    /// key's and the last message's key at any table size.
    public func session(id: String) throws(QueryError) -> SessionInfo? {
        let result = try run(
            prepared: "session_by_id", Self.sessionByIDStatement, [id], retryable: true)
        return result.rowCount == 0 ? nil : try RowDecoding.session(result, 0)
    }

    /// `createSession`'s statement, built once.
    static let createSessionStatement = """
        WITH workspace AS (
            INSERT INTO workspaces (id, name) VALUES ($1::uuid, 'Workspace ' || $1::uuid::text)
            ON CONFLICT (id) DO NOTHING
        ),
        s AS (
            INSERT INTO chat_sessions (workspace_id, user_id, title, status, last_seq, context, contact)
            VALUES ($1::uuid, $2, coalesce($3, 'New chat'), 'open', 0, $4::jsonb,
                    CASE WHEN $5::jsonb IS NOT NULL THEN jsonb_build_object('verified', $5::jsonb) END)
            RETURNING *
        )
        SELECT \(RowDecoding.sessionColumns) FROM s \(RowDecoding.lastMessageJoin)
        """

    /// `session(id:)`'s statement, built once.
    static let sessionByIDStatement = """
        SELECT \(RowDecoding.sessionColumns)
          FROM chat_sessions s \(RowDecoding.lastMessageJoin)
         WHERE s.id = $1::uuid AND s.deleted_at IS NULL
        """
}
