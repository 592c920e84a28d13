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

    /// This connection's application_name: `applicationName` for the reader
    /// pool; the background workers name themselves (`BackgroundRole`), so
    /// that what each costs the database can be told apart in
    /// pg_stat_activity, pg_stat_statements and /proc.
    private let role: String

    /// Statements run on each new connection after its name and timeout (`BackgroundRole.sessionSettings`).
    private let roleSettings: [String]

    /// Whether this connection's commits wait for the WAL to reach the disk.
    private let waitsForDisk: Bool

    /// `waitsForDisk` false: for writes whose loss in a crash repeats work
    /// rather than loses it (the webhook dispatcher's claims and records: a
    /// lost one sends a delivery again, which at-least-once allows), so that
    /// each does not wait for a flush of its own.
    public init(databaseURL: String, waitsForDisk: Bool = true, role: BackgroundRole? = nil) {
        self.databaseURL = databaseURL
        self.waitsForDisk = waitsForDisk
        self.role = role?.rawValue ?? Self.applicationName
        self.roleSettings = role?.sessionSettings ?? []
    }

    /// SELECT 1 (for readiness checks).
    public func ping() throws(QueryError) {
        _ = try run("SELECT 1", [], retryable: true)
    }

    /// Runs one statement. A connection that sat idle may have died unnoticed
    /// (server restart, idle timeout, pg_terminate_backend): when a reused
    /// connection turns out lost and the statement is safe to repeat
    /// (`retryable`: reads, and writes whose repetition changes nothing), it is
    /// retried once on a fresh connection instead of failing the client. Such a
    /// statement that the server chose as a deadlock's (or a serialization
    /// conflict's) victim outside a transaction is run again too, up to
    /// `conflictRetries` times: it was rolled back whole, and the transaction
    /// it collided with has gone on (a routing pass and a heartbeat both
    /// update an operator's row).
    func run(_ sql: String, _ parameters: [String?], retryable: Bool) throws(QueryError) -> PostgresResult {
        try run(sql, parameters, preparedAs: nil, retryable: retryable)
    }

    /// `run`, for a statement sent over and over (the webhook queue's claims
    /// and records, the expander's passes, the session and history reads of
    /// every subscribe): it is
    /// prepared on the connection under `name` the first time, and then sent
    /// without its text, so that PostgreSQL neither parses nor analyzes it
    /// again (a record of 64 outcomes: 0.90-0.94 ms as new text, 0.59-0.62 ms
    /// prepared; `pgbench`, docs/webhooks.md). `name` is unique to `sql` for
    /// the life of the process. PostgreSQL may keep one plan for it from its
    /// sixth run on, made from the statistics of that moment: only for
    /// statements whose plan is right at any table size (a function call, a
    /// function planned by key, as migration 30's record is, or a lookup by
    /// a unique key). A statement that a migration changed under it is
    /// prepared again and run at once (`PostgresConnection.query(prepared:from:_:)`).
    func run(
        prepared name: String, _ sql: String, _ parameters: [String?], retryable: Bool
    ) throws(QueryError)
        -> PostgresResult
    {
        try run(sql, parameters, preparedAs: name, retryable: retryable)
    }

    private func run(
        _ sql: String, _ parameters: [String?], preparedAs name: String?, retryable: Bool
    ) throws(QueryError) -> PostgresResult {
        let reused = connection != nil
        var conflicts = 0
        var lost = false
        while true {
            do {
                return try attempt(
                    sql, parameters, preparedAs: name, retryingConflicts: retryable && conflicts < Self.conflictRetries)
            } catch {
                switch error {
                case .conflict:
                    conflicts += 1
                case .query(let error):
                    // A reused connection found lost: once, on a fresh one.
                    guard case .unavailable = error, reused, retryable, !lost else { throw error }
                    lost = true
                }
            }
        }
    }

    /// How many times a retryable statement is run again after losing a conflict.
    static let conflictRetries = 3

    private enum AttemptError: Error {
        case query(QueryError)
        /// Lost a deadlock or serialization conflict, outside a transaction.
        case conflict
    }

    private func attempt(
        _ sql: String, _ parameters: [String?], preparedAs name: String?, retryingConflicts: Bool
    ) throws(AttemptError) -> PostgresResult {
        let connection: PostgresConnection
        do { connection = try connected() } catch { throw .query(error) }
        do throws(PostgresError) {
            guard let name else { return try connection.query(sql, parameters) }
            return try connection.query(prepared: name, from: sql, parameters)
        } catch {
            if retryingConflicts && error.isTransientConflict && connection.isOutsideTransaction {
                throw .conflict
            }
            if error.isConnectionLoss || !connection.isConnected {
                // The outcome of this statement is unknown and the socket is dead:
                // drop it so the next call connects afresh.
                self.connection = nil
                throw .query(.unavailable(error.description))
            }
            throw .query(.failed(error.description))
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
                (["SET application_name = '\(role)'", "SET statement_timeout = '\(Self.statementTimeout)'"]
                    + (waitsForDisk ? [] : ["SET synchronous_commit = off"]) + roleSettings)
                    .joined(separator: "; "))
            connection = fresh
            return fresh
        } catch {
            throw .unavailable(error.description)
        }
    }
}
