extension PostgresConnection {
    /// Runs the statement `name`, prepared from `sql` the first time it runs
    /// on this connection (`sql` is not built again after that), so that
    /// PostgreSQL neither parses nor plans it anew on every call.
    ///
    /// A prepared statement fails before it does anything when a schema change
    /// altered what it returns (0A000, "cached plan must not change result
    /// type") or when it was dropped on the server (26000: `DEALLOCATE`, a
    /// pooler's `DISCARD ALL`): outside a transaction it is prepared again and
    /// run once more, so that a migration made online costs the caller
    /// nothing. Inside one the failure aborted the transaction and is thrown;
    /// the next such failure outside one prepares it again. Any other failure
    /// (a timeout, a constraint) leaves the statement prepared.
    @discardableResult
    public func query(
        prepared name: String, from sql: @autoclosure () -> String, _ parameters: [String?]
    ) throws(PostgresError) -> PostgresResult {
        if !preparedNames.contains(name) { try prepare(name, sql()) }
        do throws(PostgresError) {
            return try query(prepared: name, parameters)
        } catch {
            guard error.isStalePreparedStatement, isConnected, isOutsideTransaction else { throw error }
            preparedNames.remove(name)
            _ = try? query("DEALLOCATE " + name)
            try prepare(name, sql())
            return try query(prepared: name, parameters)
        }
    }
}
