import SwitchboardChat
import SwitchboardPostgres

/// Why a satisfaction rating was not stored.
public enum CsatRefusal: Error, Sendable, Equatable {
    /// No live session of this visitor.
    case notFound
    /// The conversation is not closed: there is nothing to rate yet.
    case notClosed
    /// Rated already: a session takes one rating.
    case alreadyRated
    /// The workspace turned the survey off.
    case disabled
}

/// A closed session's satisfaction rating (`csat`, migration 18).
extension ChatQueries {
    /// Stores the rating once, for the session's own visitor, on a closed session of a workspace whose
    /// survey is on; the session as the write left it, or why not. The update decides alone (one
    /// statement, so two ratings at once store one); the reason is read only after a refusal.
    public func recordCsat(
        sessionID: String, visitorID: String, rating: Int, comment: String?
    ) throws(QueryError) -> Result<SessionInfo, CsatRefusal> {
        let result = try run(
            """
            WITH s AS (
                UPDATE chat_sessions s
                   SET csat = jsonb_build_object('rating', $3::int, 'created_at', \(RowDecoding.timestamp("now()")))
                              || CASE WHEN $4::text IS NULL THEN '{}'::jsonb
                                      ELSE jsonb_build_object('comment', $4::text) END,
                       version = s.version + 1
                 WHERE s.id = $1::uuid AND s.user_id = $2 AND s.deleted_at IS NULL AND s.status = 'closed'
                   AND s.csat IS NULL
                   AND coalesce((SELECT w.csat_enabled FROM workspaces w WHERE w.id = s.workspace_id), true)
                RETURNING s.*
            )
            SELECT \(RowDecoding.sessionColumns) FROM s \(RowDecoding.lastMessageJoin)
            """, [sessionID, visitorID, String(rating), comment], retryable: false)
        if result.rowCount == 1 { return .success(try RowDecoding.session(result, 0)) }
        let why = try run(
            """
            SELECT s.status, s.csat IS NOT NULL, coalesce(w.csat_enabled, true)
              FROM chat_sessions s LEFT JOIN workspaces w ON w.id = s.workspace_id
             WHERE s.id = $1::uuid AND s.user_id = $2 AND s.deleted_at IS NULL
            """, [sessionID, visitorID], retryable: true)
        guard why.rowCount == 1 else { return .failure(.notFound) }
        if why.bool(0, 2) == false { return .failure(.disabled) }
        if why.bool(0, 1) == true { return .failure(.alreadyRated) }
        return .failure(.notClosed)
    }

    /// Whether the workspace asks its visitors for a rating (on unless turned off).
    public func csatEnabled(workspaceID: String) throws(QueryError) -> Bool {
        let result = try run(
            "SELECT csat_enabled FROM workspaces WHERE id = $1::uuid", [workspaceID], retryable: true)
        return result.rowCount == 0 ? true : result.bool(0, 0) != false
    }

    /// Turns the workspace's survey on or off (its row made if it has none yet).
    public func setCsatEnabled(workspaceID: String, _ enabled: Bool) throws(QueryError) {
        _ = try run(
            """
            INSERT INTO workspaces (id, name, csat_enabled) VALUES ($1::uuid, 'Workspace ' || $1::uuid::text, $2::boolean)
            ON CONFLICT (id) DO UPDATE SET csat_enabled = EXCLUDED.csat_enabled
            """, [workspaceID, enabled ? "true" : "false"], retryable: true)
    }
}
