import SwitchboardChat
import SwitchboardPostgres

/// The operator API's delete and the readiness check's schema version.
extension ChatQueries {
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
