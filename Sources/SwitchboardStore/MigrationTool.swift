import SwitchboardPostgres

/// What `switchboard migrate` does, apart from argument parsing: the CLI is a
/// thin shell over these functions, so tests drive them directly. Output lines
/// go to `output`; failures are thrown as `MigrationError` for the caller to
/// print and turn into a non-zero exit.
public enum MigrationTool {
    public typealias Output = (String) -> Void

    /// `--database-url` wins over `SWITCHBOARD_DATABASE_URL`; empty counts as absent.
    public static func databaseURL(flag: String?, environment: String?) throws(MigrationError) -> String {
        if let flag, !flag.isEmpty { return flag }
        if let environment, !environment.isEmpty { return environment }
        throw .noDatabaseURL
    }

    /// `migrate up`: applies what is pending, one line per migration.
    /// `through`: apply the pending migrations up to that version only (a
    /// staged upgrade, or a benchmark timing one migration); nil, all.
    public static func up(
        url: String, migrations all: [Migration] = Migrations.all, through target: Int? = nil, output: Output
    ) throws(MigrationError) {
        let migrations = target.map { target in all.filter { $0.version <= target } } ?? all
        if let target, target < 1 || target > (all.last?.version ?? 0) {
            throw .unknownTarget(target, newest: all.last?.version ?? 0)
        }
        let runner = try MigrationRunner(url: url, migrations: migrations)
        let applied = try runner.up { migration in
            output("applied \(migration.version) \(migration.name)")
        }
        let version = migrations.last?.version ?? 0
        output(
            applied.isEmpty
                ? "schema is up to date at version \(version)"
                : "schema is at version \(version) (\(applied.count) applied)")
    }

    /// `migrate status`: a table of every version either side knows.
    public static func status(
        url: String, migrations: [Migration] = Migrations.all, output: Output
    ) throws(MigrationError) {
        let status = try MigrationRunner(url: url, migrations: migrations).status()
        let nameWidth = max(4, status.entries.map(\.name.count).max() ?? 0)
        output(pad("version", 8) + pad("name", nameWidth + 2) + "state")
        for entry in status.entries {
            output(pad(String(entry.version), 8) + pad(entry.name, nameWidth + 2) + describe(entry.state))
        }
        if !status.divergences.isEmpty {
            output("diverged: \(MigrationError.diverged(status.divergences))")
        } else if status.pending.isEmpty {
            output("schema is up to date at version \(status.currentVersion)")
        } else {
            output(
                "schema is at version \(status.currentVersion), this build needs \(status.latestVersion): "
                    + "\(status.pending.count) pending")
        }
    }

    /// `migrate verify`: "OK", or one line per failed check; returns whether all passed.
    public static func verify(
        url: String, migrations: [Migration] = Migrations.all, output: Output
    ) throws(MigrationError) -> Bool {
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection(url)
        } catch {
            throw .unreachable(error)
        }
        let failures = try SchemaVerifier(connection: connection, migrations: migrations).verify()
        if failures.isEmpty {
            output("OK: every verification check passed")
            return true
        }
        for failure in failures { output("FAILED \(failure)") }
        output("\(failures.count) verification check(s) failed")
        return false
    }

    /// `migrate down --to N [--yes]`: refuses without confirmation, since
    /// rolling back deletes data; with it, warns and rolls back.
    public static func down(
        url: String, to target: Int, confirmed: Bool, migrations: [Migration] = Migrations.all, output: Output
    ) throws(MigrationError) {
        let runner = try MigrationRunner(url: url, migrations: migrations)
        let current = try runner.history().currentVersion
        guard target >= 0, target <= current else { throw .invalidTarget(target, current: current) }
        if target == current {
            output("schema is already at version \(target): nothing to roll back")
            return
        }
        guard confirmed else { throw .notConfirmed(target: target, current: current) }
        output(
            "warning: rolling back from version \(current) to \(target); this deletes data "
                + "(sessions, read positions, message numbering) that migrating up does not bring back")
        try runner.migrateDown(to: target) { migration in
            output("rolled back \(migration.version) \(migration.name)")
        }
        output("schema is at version \(target)")
    }

    static func describe(_ state: MigrationStatus.State) -> String {
        switch state {
        case .applied(let at): "applied \(at)"
        case .pending: "pending"
        case .unknown(let at): "unknown to this build (applied \(at))"
        case .edited(let at, let recorded, let current):
            "edited after it was applied \(at) (recorded checksum \(recorded), this build \(current))"
        }
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
