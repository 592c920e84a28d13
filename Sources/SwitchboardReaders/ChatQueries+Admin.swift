import SwitchboardChat
import SwitchboardPostgres

/// The outcome of `updateSession`.
public enum SessionUpdate: Sendable, Equatable {
    /// The session as the update left it.
    case updated(SessionInfo)
    /// No such session, or it is soft-deleted.
    case notFound
    /// The change is not allowed in the session's current state.
    case conflict(String)
}

/// The operator API's writes (PATCH, DELETE) and the readiness check's schema version.
extension ChatQueries {
    /// PATCH: new title and/or status (nil = unchanged). Status `closed` sets closed_at = now() (a session that
    /// is already closed keeps its closed_at, as `close` does); `open` clears closed_at and the assigned operator;
    /// `assigned` needs an assigned operator already (else `.conflict`) and clears closed_at, as `assign` does.
    /// Missing or soft-deleted session: `.notFound`.
    ///
    /// One statement. The assignment check is in the UPDATE's WHERE, so it is
    /// re-checked against the row as it stands when a concurrent write got
    /// there first. The row always comes back: the updated session (if any)
    /// and whether a live session existed, which tells a refused `assigned`
    /// (conflict) from a missing session. Retryable: repeating it leaves the
    /// same state.
    public func updateSession(
        sessionID: String, title: String?, status: SessionStatus?
    ) throws(QueryError)
        -> SessionUpdate
    {
        let result = try run(
            """
            WITH s AS (
                UPDATE chat_sessions c
                   SET title = coalesce($2::text, c.title),
                       status = coalesce($3::text, c.status),
                       closed_at = CASE
                           WHEN $3::text = 'closed' AND c.status = 'closed' THEN coalesce(c.closed_at, now())
                           WHEN $3::text = 'closed' THEN now()
                           WHEN $3::text IN ('open', 'assigned') THEN NULL
                           ELSE c.closed_at END,
                       assigned_operator_id = CASE WHEN $3::text = 'open' THEN NULL ELSE c.assigned_operator_id END,
                       assigned_operator_name = CASE
                           WHEN $3::text = 'open' THEN NULL ELSE c.assigned_operator_name END,
                       version = c.version + 1
                 WHERE c.id = $1::uuid AND c.deleted_at IS NULL
                   AND ($3::text IS DISTINCT FROM 'assigned' OR c.assigned_operator_id IS NOT NULL)
                RETURNING c.*
            )
            SELECT \(RowDecoding.sessionColumns),
                   EXISTS (SELECT 1 FROM chat_sessions WHERE id = $1::uuid AND deleted_at IS NULL)
              FROM (SELECT 1) one
              LEFT JOIN (s \(RowDecoding.lastMessageJoin)) ON true
            """, [sessionID, title, status?.rawValue], retryable: true)
        guard result.rowCount == 1 else { throw .failed("updating a session returned \(result.rowCount) rows") }
        if !result.isNull(0, 0) { return .updated(try RowDecoding.session(result, 0)) }
        let existed = result.bool(0, RowDecoding.sessionCursorColumn + 1) == true
        if existed && status == .assigned {
            return .conflict("the session has no assigned operator")
        }
        return .notFound
    }

    /// Soft delete: sets deleted_at = now() (the trigger sets updated_at) and
    /// returns the session as deleted (`deleted` true, its version the
    /// newest); nil when missing or already deleted. The session's rows, and
    /// its messages, stay.
    ///
    /// Retryable: a repeat changes nothing (should the reply to a delete that
    /// took effect be lost with the connection, the retry answers nil).
    public func softDeleteSession(sessionID: String) throws(QueryError) -> SessionInfo? {
        let result = try run(
            """
            WITH s AS (
                UPDATE chat_sessions SET deleted_at = now(), version = version + 1
                 WHERE id = $1::uuid AND deleted_at IS NULL
                RETURNING *
            )
            SELECT \(RowDecoding.sessionColumns) FROM s \(RowDecoding.lastMessageJoin)
            """, [sessionID], retryable: true)
        return result.rowCount == 0 ? nil : try RowDecoding.session(result, 0)
    }

    /// The newest applied migration version (max(version) of schema_migrations); nil when that table is missing
    /// (or empty).
    ///
    /// Two statements: a statement naming a missing table fails to plan, so
    /// the table's existence is asked first.
    public func appliedSchemaVersion() throws(QueryError) -> Int? {
        let exists = try run("SELECT to_regclass('schema_migrations') IS NOT NULL", [], retryable: true)
        guard exists.rowCount == 1, exists.bool(0, 0) == true else { return nil }
        let result = try run("SELECT max(version) FROM schema_migrations", [], retryable: true)
        guard result.rowCount == 1, !result.isNull(0, 0) else { return nil }
        return Int(try RowDecoding.int64(result, 0, 0))
    }
}
