import SwitchboardPostgres
import SwitchboardSystem

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
            throw .unavailable(error.description)
        }
    }

    /// Why a transaction did not commit, as far as anyone can tell.
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

    /// Runs `body` between BEGIN and COMMIT, and returns once the commit is on
    /// disk; statements in it must not be `retryable` (a retry would run
    /// outside the transaction).
    ///
    /// No commit of a worker waits for a flush of its own (`synchronous_commit
    /// = off`, set when it connects): a commit on its own flush put one more
    /// fsync per upload on the disk the chat's commits wait for, and 90
    /// uploads of 100 KiB a second lengthened the chat's p99 by a quarter
    /// (docs/benchmarks.md, "Attachments"). Instead the worker waits until
    /// PostgreSQL's log is flushed past the commit by someone else's flush:
    /// the chat writer's commits, or the WAL writer (`waitUntilDurable`).
    /// The log is one sequence, so that flush also makes every chunk the
    /// upload wrote before durable; an upload is acknowledged only then, and
    /// a crash before it loses only bytes no acknowledged row points at.
    func transaction<T>(_ body: () throws(AttachmentStoreError) -> T) throws(Outcome) -> T {
        let value: T
        do {
            // A connection that died while idle is replaced here, before anything ran.
            try run("BEGIN", [], retryable: true)
            value = try body()
        } catch {
            rollback()
            throw .rolledBack(error)
        }
        do {
            try run("COMMIT", [], retryable: false)
        } catch {
            // A server that answered (a deferred constraint) rolled back; a lost connection says nothing.
            throw connection == nil ? .unknown(error) : .rolledBack(error)
        }
        do {
            try waitUntilDurable()
        } catch {
            // Committed, and maybe on disk: as for a COMMIT whose answer was lost.
            throw .unknown(error)
        }
        return value
    }

    /// How long a commit waits for another's flush before forcing its own.
    /// Under chat load the writer's commits flush every few milliseconds; on a
    /// quiet server the WAL writer would take up to 600 ms, which a visitor
    /// would see, and a flush of its own competes with nobody there.
    static let durableWaitMilliseconds = 25

    /// Returns once PostgreSQL's log is on disk up to (at least) this
    /// connection's last commit.
    private func waitUntilDurable() throws(AttachmentStoreError) {
        let position = try run("SELECT pg_current_wal_insert_lsn()::text", [], retryable: false).string(0, 0) ?? ""
        let flushed = "SELECT pg_current_wal_flush_lsn() >= $1::pg_lsn"
        var waited = 0
        while try run(flushed, [position], retryable: true).string(0, 0) != "t" {
            guard waited < Self.durableWaitMilliseconds else {
                // A quiet server: flush now, with a transaction that has something to commit.
                try run("BEGIN", [], retryable: false)
                try run("SET LOCAL synchronous_commit = on", [], retryable: false)
                try run("SELECT txid_current()", [], retryable: false)
                try run("COMMIT", [], retryable: false)
                return
            }
            ThisProcess.sleep(milliseconds: 2)
            waited += 2
        }
    }

    private func rollback() {
        guard let connection, connection.isConnected else { return }
        _ = try? connection.query("ROLLBACK")
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
