/// Statements that must commit together, on a reader's connection.
extension ChatQueries {
    /// Runs `body` between BEGIN and COMMIT. Statements in `body` must pass
    /// `retryable: false`: a retry on a fresh connection would run outside
    /// the transaction. On any failure the transaction is rolled back (when
    /// the connection still lives) and the error rethrown; a connection lost
    /// at COMMIT leaves the outcome unknown, reported as `unavailable`.
    func transaction<T>(_ body: () throws(QueryError) -> T) throws(QueryError) -> T {
        // A connection that died while idle is replaced here, before anything ran.
        _ = try run("BEGIN", [], retryable: true)
        do {
            let value = try body()
            _ = try run("COMMIT", [], retryable: false)
            return value
        } catch {
            rollback()
            throw error
        }
    }
}
