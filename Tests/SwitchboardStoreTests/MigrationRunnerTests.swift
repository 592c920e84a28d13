import Foundation
import SwitchboardPostgres
import SwitchboardStore
import SwitchboardTestSupport
import Testing

@Suite struct MigrationRunnerTests {
    @Test func blankDatabaseMigratesVerifiesAndRerunIsANoOp() throws {
        let database = try TestDatabase()
        defer { database.drop() }
        let db = try database.connect()
        let runner = try MigrationRunner(connection: db)

        #expect(try runner.status().pending.count == Migrations.all.count)
        let applied = try runner.up()
        #expect(applied.map(\.version) == Array(1...latest))
        #expect(try SchemaVerifier(connection: db).verify() == [])
        #expect(try SchemaCheck.require(url: database.url) == latest)
        let rows = try db.historyRows()
        #expect(rows.count == latest)
        #expect(rows.map { $0[2] } == Migrations.all.map(\.checksum))

        let again = try MigrationRunner(connection: db).up()
        #expect(again.isEmpty)
        #expect(try db.historyRows() == rows)
        #expect(try runner.status().isUpToDate)
    }

    @Test func unknownRecordedVersionIsRefusedNamingIt() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        try db.query(
            "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, 'future_thing', 'f00')",
            [String(future)])

        let error = #expect(throws: MigrationError.self) { try MigrationRunner(connection: db).up() }
        let message = error?.description ?? ""
        #expect(message.contains("database has migration \(future) (future_thing) which this build does not know"))
        #expect(message.contains("the database is newer than this binary"))
        #expect(throws: MigrationError.diverged([.unknown(version: future, name: "future_thing", newer: true)])) {
            try SchemaCheck.require(url: database.url)
        }
        #expect(try db.appliedVersions() == Array(1...future))
    }

    @Test func editedMigrationIsRefusedBeforeAnythingIsApplied() throws {
        let database = try TestDatabase()
        defer { database.drop() }
        let db = try database.connect()
        try MigrationRunner(connection: db, migrations: migrations(upTo: 3)).up()

        let edited = migrations(editing: 3)
        let original = Migrations.all[2].checksum
        let changed = edited[2].checksum
        #expect(original != changed)
        let error = #expect(throws: MigrationError.self) {
            try MigrationRunner(connection: db, migrations: edited).up()
        }
        let message = error?.description ?? ""
        #expect(message.contains("migration 3 add_session_id_to_chats was edited after it was applied"))
        #expect(message.contains("recorded checksum \(original), this build \(changed)"))
        // 4 and 5 were pending and stay pending: the refusal comes first.
        #expect(try db.appliedVersions() == [1, 2, 3])
        #expect(try !db.exists("chat_read_positions"))
    }

    @Test func aGapInTheHistoryIsRefused() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        try db.query("DELETE FROM schema_migrations WHERE version = 3")
        #expect(throws: MigrationError.diverged([.gap(version: 3, name: "add_session_id_to_chats", later: 4)])) {
            try MigrationRunner(connection: db).up()
        }
    }

    @Test func behindAndUnreachableDatabasesFailTheServeCheck() throws {
        let database = try TestDatabase()
        defer { database.drop() }
        #expect(throws: MigrationError.behind(current: 0, required: latest)) {
            try SchemaCheck.require(url: database.url)
        }
        try MigrationRunner(url: database.url, migrations: migrations(upTo: 3)).up()
        let error = #expect(throws: MigrationError.self) { try SchemaCheck.require(url: database.url) }
        #expect(
            error?.description == "schema is at version 3, this build needs \(latest): run `switchboard migrate up`")

        let unreachable = #expect(throws: MigrationError.self) {
            try SchemaCheck.require(url: "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2")
        }
        guard case .unreachable = unreachable else {
            Issue.record("expected .unreachable, got \(String(describing: unreachable))")
            return
        }
    }

    @Test func aFailingMigrationIsRolledBackWhole() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        let broken = Migration(
            version: future, name: "broken", sql: "CREATE TABLE half_done (id int); SELECT 1 / 0;", down: "")
        let error = #expect(throws: MigrationError.self) {
            try MigrationRunner(connection: db, migrations: Migrations.all + [broken]).up()
        }
        #expect(error?.description.hasPrefix("migration \(future) broken failed (rolled back") == true)
        #expect(error?.description.contains("division by zero") == true)
        #expect(try !db.exists("half_done"))
        #expect(try db.appliedVersions() == Array(1...latest))
        // The lock was released: another runner gets through at once.
        #expect(try MigrationRunner(url: database.url).up().isEmpty)
    }

    /// `CREATE INDEX CONCURRENTLY` runs only outside a transaction: such a
    /// migration's statements run alone, what ran before a failure stays,
    /// and the migration runs again from its start once fixed.
    @Test func aMigrationOfStatementsAloneRunsOutsideATransactionAndAgainAfterAFailure() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        let build = [
            "DROP INDEX CONCURRENTLY IF EXISTS idx_test_titles",
            "CREATE INDEX CONCURRENTLY idx_test_titles ON chat_sessions (title)",
        ]
        let drop = ["DROP INDEX CONCURRENTLY IF EXISTS idx_test_titles"]
        let failing = Migration(version: future, name: "titles", statementsAlone: build + ["SELECT 1 / 0"], down: drop)
        let error = #expect(throws: MigrationError.self) {
            try MigrationRunner(connection: db, migrations: Migrations.all + [failing]).up()
        }
        #expect(error?.description.contains("division by zero") == true)
        #expect(try db.appliedVersions() == Array(1...latest))
        #expect(try db.exists("idx_test_titles"))

        let fixed = Migration(version: future, name: "titles", statementsAlone: build, down: drop)
        let runner = try MigrationRunner(connection: db, migrations: Migrations.all + [fixed])
        #expect(try runner.up().map(\.version) == [future])
        #expect(try db.appliedVersions() == Array(1...future))
        let valid = try db.query("SELECT indisvalid FROM pg_index WHERE indexrelid = 'idx_test_titles'::regclass")
        #expect(valid.bool(0, 0) == true)
        #expect(try runner.migrateDown(to: latest).map(\.version) == [future])
        #expect(try !db.exists("idx_test_titles"))
        #expect(try db.appliedVersions() == Array(1...latest))
    }

    @Test func concurrentRunnersApplyEachMigrationExactlyOnce() throws {
        let database = try TestDatabase()
        defer { database.drop() }
        let outcomes = Outcomes()
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            do {
                let applied = try MigrationRunner(connection: PostgresConnection(database.url)).up()
                outcomes.add(.success(applied.map(\.version)))
            } catch {
                outcomes.add(.failure(error))
            }
        }
        let results = outcomes.all
        #expect(results.count == 2)
        let versions = results.compactMap { try? $0.get() }
        #expect(versions.count == 2, "both runners succeed: \(results)")
        // The lock is held for the whole run: one applies everything, the other finds nothing to do.
        #expect(versions.map(\.count).sorted() == [0, latest])
        #expect(versions.flatMap { $0 }.sorted() == Array(1...latest))
        #expect(try database.connect().appliedVersions() == Array(1...latest))
    }

    @Test func runnerWaitsForTheAdvisoryLock() throws {
        let database = try TestDatabase()
        defer { database.drop() }
        let holder = try database.connect()
        try holder.query("SELECT pg_advisory_lock($1)", [String(MigrationRunner.advisoryLockKey)])
        let outcomes = Outcomes()
        let done = DispatchSemaphore(value: 0)
        let url = database.url
        Thread.detachNewThread {
            do {
                outcomes.add(.success(try MigrationRunner(connection: PostgresConnection(url)).up().map(\.version)))
            } catch {
                outcomes.add(.failure(error))
            }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 0.5) == .timedOut, "the runner must wait while another holds the lock")
        #expect(try !holder.exists("schema_migrations"))
        try holder.query("SELECT pg_advisory_unlock($1)", [String(MigrationRunner.advisoryLockKey)])
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(try outcomes.all.first?.get() == Array(1...latest))
    }
}

/// Results gathered from several threads.
final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<[Int], any Error>] = []

    func add(_ result: Result<[Int], any Error>) { lock.withLock { results.append(result) } }
    var all: [Result<[Int], any Error>] { lock.withLock { results } }
}
