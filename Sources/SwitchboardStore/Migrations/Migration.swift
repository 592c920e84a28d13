import SwitchboardCrypto

/// One schema change, compiled into the binary. Versions form one linear
/// history; the runner records each applied version with a checksum of its
/// SQL so an edited migration is detected instead of silently diverging.
///
/// `down` undoes `sql` and is destructive by design: it deletes whatever the
/// migration added, data included. Only `switchboard migrate down --yes` runs it.
public struct Migration: Sendable {
    public let version: Int
    public let name: String
    public let sql: String
    public let down: String

    public init(version: Int, name: String, sql: String, down: String) {
        self.version = version
        self.name = name
        self.sql = sql
        self.down = down
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
    ]

    public static var latestVersion: Int { all.last?.version ?? 0 }
}
