import SwitchboardPostgres

/// One attachment worker's connection, made on first use and made again on
/// the next statement after a loss (as the readers' ChatQueries). Not
/// thread-safe: one per worker thread, or one per purge run.
final class AttachmentDatabase {
    private let databaseURL: String
    private var connection: PostgresConnection?

    /// Shown in pg_stat_activity, so operators (and tests) can tell these backends apart.
    static let applicationName = "switchboard-attachments"
    /// A bound on every statement: a stuck one must not hold a worker (and the uploads pinned to it) forever.
    static let statementTimeout = "60s"

    init(databaseURL: String) {
        self.databaseURL = databaseURL
    }

    /// Runs one statement. A reused connection found dead is replaced and the
    /// statement run again once, when it is safe to repeat (`retryable`:
    /// reads, and writes whose repetition changes nothing).
    @discardableResult
    func run(
        _ sql: String, _ parameters: [PostgresParameter], binaryResults: Bool = false, retryable: Bool
    ) throws(AttachmentStoreError) -> PostgresResult {
        let reused = connection != nil
        do {
            return try attempt(sql, parameters, binaryResults)
        } catch {
            guard reused, retryable, connection == nil else { throw error }
            return try attempt(sql, parameters, binaryResults)
        }
    }

    @discardableResult
    func run(_ sql: String, _ parameters: [String?], retryable: Bool) throws(AttachmentStoreError) -> PostgresResult {
        try run(sql, parameters.map { .text($0) }, retryable: retryable)
    }

    private func attempt(
        _ sql: String, _ parameters: [PostgresParameter], _ binaryResults: Bool
    ) throws(AttachmentStoreError) -> PostgresResult {
        let connection = try connected()
        do {
            return try connection.query(sql, parameters: parameters, binaryResults: binaryResults)
        } catch {
            if error.isConnectionLoss || !connection.isConnected {
                // The outcome is unknown and the socket dead: the next statement connects afresh.
                self.connection = nil
            }
            throw Self.storeError(error)
        }
    }

    /// The refusals of `switchboard_commit_attachment` by their SQLSTATE (migration 15).
    private static func storeError(_ error: PostgresError) -> AttachmentStoreError {
        switch error.sqlState {
        case "SBA01": .noSession
        case "SBA02": .quotaExceeded
        default: .unavailable(error.description)
        }
    }

    /// Why a commit did not commit, as far as anyone can tell.
    enum Outcome: Error {
        /// It did not commit: whatever it would have made visible is not.
        case rolledBack(AttachmentStoreError)
        /// The connection broke at COMMIT: it may or may not have committed.
        case unknown(AttachmentStoreError)

        var error: AttachmentStoreError {
            switch self {
            case .rolledBack(let error), .unknown(let error): return error
            }
        }
    }

    /// Runs the statement that commits an upload, which must be repeatable.
    ///
    /// Only these commits wait for the disk (the statement sets
    /// `synchronous_commit` locally). Everything else on a worker's connection
    /// (chunks, discards, purges) commits without waiting
    /// (`synchronous_commit = off`, set when it connects): PostgreSQL's log is
    /// one sequence, so the flush that this commit waits for also makes every
    /// earlier statement of the connection durable, and a crash before it
    /// loses only bytes no row points at, which the orphan purge removes.
    /// An upload of 5 MiB waits for one flush instead of 21, and the chat's
    /// commits share the disk with one flush per upload.
    func commit(_ sql: String, _ parameters: [PostgresParameter]) throws(Outcome) -> PostgresResult {
        do {
            return try run(sql, parameters, retryable: true)
        } catch {
            // A server that answered rolled back; a lost connection says nothing.
            throw connection == nil ? .unknown(error) : .rolledBack(error)
        }
    }

    private func connected() throws(AttachmentStoreError) -> PostgresConnection {
        if let connection, connection.isConnected { return connection }
        connection = nil
        do {
            let fresh = try PostgresConnection(databaseURL)
            try fresh.execute(
                "SET application_name = '\(Self.applicationName)'; SET statement_timeout = '\(Self.statementTimeout)'; "
                    + "SET synchronous_commit = off")
            connection = fresh
            return fresh
        } catch {
            throw .unavailable(error.description)
        }
    }
}
