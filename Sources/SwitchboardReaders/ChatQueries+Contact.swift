import SwitchboardChat
import SwitchboardPostgres

/// What a visitor says about itself (`session.contact`, docs/protocol.md).
extension ChatQueries {
    /// Stores `email` as the session's `contact.email` (merged into what
    /// `contact` held), for the session's own visitor only; the session as
    /// the write left it, or nil when `visitorID` has no such live session.
    /// One statement; retryable: it writes a state.
    public func recordContact(sessionID: String, visitorID: String, email: String) throws(QueryError) -> SessionInfo? {
        let result = try run(
            """
            WITH s AS (
                UPDATE chat_sessions
                   SET contact = coalesce(contact, '{}'::jsonb) || jsonb_build_object('email', $3::text),
                       version = version + 1
                 WHERE id = $1::uuid AND user_id = $2 AND deleted_at IS NULL
                RETURNING *
            )
            SELECT \(RowDecoding.sessionColumns) FROM s \(RowDecoding.lastMessageJoin)
            """, [sessionID, visitorID, email], retryable: true)
        return result.rowCount == 0 ? nil : try RowDecoding.session(result, 0)
    }
}
