import SwitchboardPostgres

/// Applies, inspects and rolls back this build's migrations on one database.
///
/// One linear history, recorded in `schema_migrations` with a SHA-256 of each
/// migration's SQL. Each migration runs in its own transaction together with
/// its history row, so a database is always at a whole version; the exception
/// is a migration PostgreSQL cannot run in a transaction (`CREATE INDEX
/// CONCURRENTLY`), whose statements run alone and which is written to be run
/// again after a failure (`Migration.Mode`). Runners on
/// several hosts serialize on a session-level advisory lock held for the whole
/// run: the second waits, then finds nothing left to do.
///
/// Threading: uses its connection from the calling thread only (blocking).
public final class MigrationRunner {
    /// The advisory lock key every runner takes ("SWMIGRAT" in ASCII), fixed so
    /// that builds of any version exclude each other.
    public static let advisoryLockKey: Int64 = 0x5357_4D49_4752_4154

    /// How long a runner waits between tries of the advisory lock, in seconds.
    static let lockPollSeconds = "0.1"

    public let migrations: [Migration]
    private let connection: PostgresConnection

    public init(connection: PostgresConnection, migrations: [Migration] = Migrations.all) throws(MigrationError) {
        try MigrationHistory.validate(migrations)
        self.connection = connection
        self.migrations = migrations
    }

    /// Connects to `url`; an unreachable database is `.unreachable`.
    public convenience init(url: String, migrations: [Migration] = Migrations.all) throws(MigrationError) {
        try MigrationHistory.validate(migrations)
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection(url)
        } catch {
            throw .unreachable(error)
        }
        try self.init(connection: connection, migrations: migrations)
    }

    /// Applies every pending migration in order and returns those applied
    /// (empty when the database was up to date). Refuses a diverged history
    /// before applying anything.
    @discardableResult
    public func up(onApplied: (Migration) -> Void = { _ in }) throws(MigrationError) -> [Migration] {
        try withLock { () throws(MigrationError) -> [Migration] in
            do throws(PostgresError) {
                try createHistoryTable()
            } catch {
                throw Self.mapped(error)
            }
            let history = try self.history()
            let divergences = history.divergences
            guard divergences.isEmpty else { throw .diverged(divergences) }
            var applied: [Migration] = []
            for migration in history.pending {
                let record = { [connection] () throws(PostgresError) -> Void in
                    _ = try connection.query(
                        "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
                        [String(migration.version), migration.name, migration.checksum])
                }
                switch migration.mode {
                case .transaction:
                    try inTransaction(migration, .up) { () throws(PostgresError) in
                        try connection.execute(migration.sql)
                        try record()
                    }
                case .eachStatementAlone(let statements, _):
                    try alone(migration, .up, statements, then: record)
                }
                applied.append(migration)
                onApplied(migration)
            }
            return applied
        }
    }

    /// The recorded history against this build's; reads only (no lock, and
    /// no `schema_migrations` is created on a database never migrated).
    public func status() throws(MigrationError) -> MigrationStatus {
        MigrationStatus(history: try history())
    }

    public func history() throws(MigrationError) -> MigrationHistory {
        do {
            return MigrationHistory(known: migrations, recorded: try recordedHistory())
        } catch {
            throw Self.mapped(error)
        }
    }

    /// Runs the `down` SQL of every applied migration above `target`, newest
    /// first, each in its own transaction with the deletion of its history
    /// row; returns those rolled back. Destructive by design. Refuses a
    /// diverged history: the down SQL of this build may not fit what the
    /// database really has.
    @discardableResult
    public func migrateDown(
        to target: Int, onRolledBack: (Migration) -> Void = { _ in }
    ) throws(MigrationError) -> [Migration] {
        try withLock { () throws(MigrationError) -> [Migration] in
            let history = try self.history()
            let divergences = history.divergences
            guard divergences.isEmpty else { throw .diverged(divergences) }
            guard target >= 0, target <= history.currentVersion else {
                throw .invalidTarget(target, current: history.currentVersion)
            }
            let applied = Set(history.recorded.map(\.version))
            var rolledBack: [Migration] = []
            for migration in migrations.reversed()
            where migration.version > target && applied.contains(migration.version) {
                let forget = { [connection] () throws(PostgresError) -> Void in
                    _ = try connection.query(
                        "DELETE FROM schema_migrations WHERE version = $1", [String(migration.version)])
                }
                switch migration.mode {
                case .transaction:
                    try inTransaction(migration, .down) { () throws(PostgresError) in
                        try connection.execute(migration.down)
                        try forget()
                    }
                case .eachStatementAlone(_, let statements):
                    try alone(migration, .down, statements, then: forget)
                }
                rolledBack.append(migration)
                onRolledBack(migration)
            }
            return rolledBack
        }
    }

    // MARK: - Steps

    private func createHistoryTable() throws(PostgresError) {
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version int PRIMARY KEY,
                name text NOT NULL,
                checksum text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """)
    }

    /// Every recorded row; none when the table does not exist yet.
    private func recordedHistory() throws(PostgresError) -> [AppliedMigration] {
        let exists = try connection.query("SELECT to_regclass('schema_migrations') IS NOT NULL")
        guard exists.bool(0, 0) == true else { return [] }
        let rows = try connection.query(
            """
            SELECT version, name, checksum,
                   to_char(applied_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
              FROM schema_migrations ORDER BY version
            """)
        return (0..<rows.rowCount).map { row in
            AppliedMigration(
                version: rows.int(row, 0) ?? 0, name: rows.string(row, 1) ?? "",
                checksum: rows.string(row, 2) ?? "", appliedAt: rows.string(row, 3) ?? "")
        }
    }

    /// BEGIN; body; COMMIT, rolling back (and naming the migration) on failure.
    private func inTransaction(
        _ migration: Migration, _ direction: MigrationError.Direction, _ body: () throws(PostgresError) -> Void
    ) throws(MigrationError) {
        do {
            try connection.execute("BEGIN")
            try body()
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw .failed(version: migration.version, name: migration.name, direction: direction, error: error)
        }
    }

    /// Each statement in autocommit, in order, then `history` (the history
    /// row's change); the first failure stops the run and names the migration.
    /// What ran before it stays: `Migration.Mode.eachStatementAlone` says why
    /// such a migration can run again.
    private func alone(
        _ migration: Migration, _ direction: MigrationError.Direction, _ statements: [String],
        then history: () throws(PostgresError) -> Void
    ) throws(MigrationError) {
        do {
            for statement in statements { try connection.execute(statement) }
            try history()
        } catch {
            throw .failed(version: migration.version, name: migration.name, direction: direction, error: error)
        }
    }

    /// Holds the advisory lock around `body`, waiting for another runner's to end. Session-level, so it also covers
    /// the gaps between the per-migration transactions; released even when
    /// `body` throws (and by the server if the connection dies).
    private func withLock<T>(_ body: () throws(MigrationError) -> T) throws(MigrationError) -> T {
        // Polled rather than waited for: a runner blocked inside
        // pg_advisory_lock is a transaction in progress, and the holder's
        // CREATE INDEX CONCURRENTLY waits for every such transaction to end;
        // the two would deadlock. Each try is an instant's transaction.
        do {
            while try connection.query("SELECT pg_try_advisory_lock($1)", [String(Self.advisoryLockKey)])
                .bool(0, 0) != true
            {
                // The pause is the server's (this target wraps no C): a statement that ends on its own,
                // so a concurrent index build waits for it a moment at most.
                try connection.query("SELECT pg_sleep($1)", [Self.lockPollSeconds])
            }
        } catch {
            throw Self.mapped(error)
        }
        defer { _ = try? connection.query("SELECT pg_advisory_unlock($1)", [String(Self.advisoryLockKey)]) }
        return try body()
    }

    static func mapped(_ error: PostgresError) -> MigrationError {
        error.kind == .connection ? .unreachable(error) : .database(error)
    }
}
