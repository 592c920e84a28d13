import SwitchboardPostgres

/// One reader thread's queries; owns one PostgresConnection, connected lazily and
/// re-connected on the next call after a loss. Not thread-safe: one per thread.
///
/// Every statement is a single autocommitted statement with `$n` parameters, so
/// a failure never leaves a transaction open on the connection, and values from
/// clients never become SQL text.
public final class ChatQueries {
    private let databaseURL: String
    private var connection: PostgresConnection?

    /// Shown in pg_stat_activity, so operators (and tests) can tell reader backends apart.
    static let applicationName = "switchboard-reader"

    /// Whether this connection's commits wait for the WAL to reach the disk.
    private let waitsForDisk: Bool

    /// `waitsForDisk` false: for writes whose loss in a crash repeats work
    /// rather than loses it (the webhook dispatcher's claims and records: a
    /// lost one sends a delivery again, which at-least-once allows), so that
    /// each does not wait for a flush of its own.
    public init(databaseURL: String, waitsForDisk: Bool = true) {
        self.databaseURL = databaseURL
        self.waitsForDisk = waitsForDisk
    }

    /// SELECT 1 (for readiness checks).
    public func ping() throws(QueryError) {
        _ = try run("SELECT 1", [], retryable: true)
    }

    /// Runs one statement. A connection that sat idle may have died unnoticed
    /// (server restart, idle timeout, pg_terminate_backend): when a reused
    /// connection turns out lost and the statement is safe to repeat
    /// (`retryable`: reads, and writes whose repetition changes nothing), it is
    /// retried once on a fresh connection instead of failing the client.
    func run(_ sql: String, _ parameters: [String?], retryable: Bool) throws(QueryError) -> PostgresResult {
        let reused = connection != nil
        do {
            return try attempt(sql, parameters)
        } catch {
            guard case .unavailable = error, reused, retryable else { throw error }
            return try attempt(sql, parameters)
        }
    }

    private func attempt(_ sql: String, _ parameters: [String?]) throws(QueryError) -> PostgresResult {
        let connection = try connected()
        do {
            return try connection.query(sql, parameters)
        } catch {
            if error.isConnectionLoss || !connection.isConnected {
                // The outcome of this statement is unknown and the socket is dead:
                // drop it so the next call connects afresh.
                self.connection = nil
                throw .unavailable(error.description)
            }
            throw .failed(error.description)
        }
    }

    /// Ends the transaction a failure left open, on the connection it ran
    /// on; a lost connection ended it already (and no new one is made for it).
    func rollback() {
        guard let connection, connection.isConnected else { return }
        _ = try? connection.query("ROLLBACK")
    }

    /// Longest a reader query may run; answers past it are `failed` (the client gets `unavailable`).
    static let statementTimeout = "30s"

    private func connected() throws(QueryError) -> PostgresConnection {
        if let connection, connection.isConnected { return connection }
        connection = nil
        do {
            let fresh = try PostgresConnection(databaseURL)
            // A bound on every reader query: a stuck statement must not hold a reader thread
            // (and the requests queued behind it) forever.
            try fresh.execute(
                "SET application_name = '\(Self.applicationName)'; SET statement_timeout = '\(Self.statementTimeout)'"
                    + (waitsForDisk ? "" : "; SET synchronous_commit = off"))
            connection = fresh
            return fresh
        } catch {
            throw .unavailable(error.description)
        }
    }
}
