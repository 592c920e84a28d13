import SwitchboardCrypto

/// One schema change, compiled into the binary. Versions form one linear
/// history; the runner records each applied version with a checksum of its
/// SQL so an edited migration is detected instead of silently diverging.
///
/// `down` undoes `sql` and is destructive by design: it deletes whatever the
/// migration added, data included. Only `switchboard migrate down --yes` runs it.
public struct Migration: Sendable {
    /// How the runner applies a migration's SQL.
    public enum Mode: Sendable, Equatable {
        /// One transaction holds the SQL and its history row: all or nothing.
        case transaction
        /// Each statement on its own, outside any transaction, then the
        /// history row: for what PostgreSQL refuses inside one (`CREATE INDEX
        /// CONCURRENTLY`, which keeps a large table writable while it builds).
        /// A failure part way leaves the statements before it applied, so
        /// such a migration must be safe to run again from its start
        /// (`IF EXISTS` / `IF NOT EXISTS`, an invalid index dropped first).
        case eachStatementAlone(up: [String], down: [String])
    }

    public let version: Int
    public let name: String
    public let sql: String
    public let down: String
    public let mode: Mode

    public init(version: Int, name: String, sql: String, down: String) {
        self.version = version
        self.name = name
        self.sql = sql
        self.down = down
        self.mode = .transaction
    }

    /// A migration whose statements run one by one outside a transaction
    /// (`Mode.eachStatementAlone`); `sql` and `down` are them joined, for the
    /// checksum and for reading.
    public init(version: Int, name: String, statementsAlone up: [String], down: [String]) {
        self.version = version
        self.name = name
        self.sql = up.joined(separator: ";\n") + ";\n"
        self.down = down.joined(separator: ";\n") + ";\n"
        self.mode = .eachStatementAlone(up: up, down: down)
    }

    /// Hex SHA-256 of `sql` (not of `down`: editing a rollback does not change
    /// the schema a database has, so it must not make the history diverge).
    public var checksum: String { SHA256.hexDigest(sql) }
}

/// Every migration this build knows, in order.
public enum Migrations {
    public static let all: [Migration] = [
        Migration0001.migration,
        Migration0002.migration,
        Migration0003.migration,
        Migration0004.migration,
        Migration0005.migration,
        Migration0006.migration,
        Migration0007.migration,
        Migration0008.migration,
        Migration0009.migration,
        Migration0010.migration,
        Migration0011.migration,
        Migration0012.migration,
        Migration0013.migration,
        Migration0014.migration,
        Migration0015.migration,
        Migration0016.migration,
        Migration0017.migration,
        Migration0018.migration,
        Migration0019.migration,
        Migration0020.migration,
        Migration0021.migration,
        Migration0022.migration,
        Migration0023.migration,
        Migration0024.migration,
        Migration0025.migration,
        Migration0026.migration,
        Migration0027.migration,
        Migration0028.migration,
        Migration0029.migration,
        Migration0030.migration,
        Migration0031.migration,
        Migration0032.migration,
        Migration0033.migration,
        Migration0034.migration,
        Migration0035.migration,
        Migration0036.migration,
        Migration0037.migration,
        Migration0038.migration,
        Migration0039.migration,
        Migration0040.migration,
        Migration0041.migration,
        Migration0042.migration,
    ]

    public static var latestVersion: Int { all.last?.version ?? 0 }
}
