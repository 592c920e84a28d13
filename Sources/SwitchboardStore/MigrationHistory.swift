/// One row of `schema_migrations`: a migration the database says it applied.
public struct AppliedMigration: Sendable, Equatable {
    public let version: Int
    public let name: String
    public let checksum: String
    /// UTC, ISO 8601 (`2026-01-20T10:00:00Z`).
    public let appliedAt: String

    public init(version: Int, name: String, checksum: String, appliedAt: String) {
        self.version = version
        self.name = name
        self.checksum = checksum
        self.appliedAt = appliedAt
    }
}

/// A way the recorded history disagrees with this build's. Any of these makes
/// the runner refuse to touch the database: applying more migrations on top of
/// a history we do not share could build a schema nobody tested.
public enum MigrationDivergence: Sendable, Equatable, CustomStringConvertible {
    /// Recorded, but not in this build. `newer` when above this build's latest.
    case unknown(version: Int, name: String, newer: Bool)
    /// Same version, different SQL than when it was applied.
    case edited(version: Int, name: String, recorded: String, current: String)
    /// Not recorded although a later version is.
    case gap(version: Int, name: String, later: Int)

    public var version: Int {
        switch self {
        case .unknown(let version, _, _), .edited(let version, _, _, _), .gap(let version, _, _): version
        }
    }

    public var description: String {
        switch self {
        case .unknown(let version, let name, true):
            "database has migration \(version) (\(name)) which this build does not know: "
                + "the database is newer than this binary"
        case .unknown(let version, let name, false):
            "database has migration \(version) (\(name)) which this build does not know: "
                + "the database was migrated by a build with a different history"
        case .edited(let version, let name, let recorded, let current):
            "migration \(version) \(name) was edited after it was applied: "
                + "recorded checksum \(recorded), this build \(current)"
        case .gap(let version, let name, let later):
            "migration \(version) (\(name)) is not recorded but the later migration \(later) is: "
                + "the history has a gap"
        }
    }
}

/// The recorded history set against this build's: what diverges, what is
/// pending. Pure, so the rules are tested without a database.
public struct MigrationHistory: Sendable {
    public let known: [Migration]
    public let recorded: [AppliedMigration]

    public init(known: [Migration], recorded: [AppliedMigration]) {
        self.known = known
        self.recorded = recorded.sorted { $0.version < $1.version }
    }

    /// The highest recorded version (0 for a database never migrated).
    public var currentVersion: Int { recorded.last?.version ?? 0 }

    public var latestVersion: Int { known.last?.version ?? 0 }

    /// Known migrations not recorded yet, in order.
    public var pending: [Migration] {
        let applied = Set(recorded.map(\.version))
        return known.filter { !applied.contains($0.version) }
    }

    public var divergences: [MigrationDivergence] {
        let byVersion = Dictionary(known.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
        let appliedVersions = Set(recorded.map(\.version))
        var found: [MigrationDivergence] = []
        for row in recorded {
            guard let migration = byVersion[row.version] else {
                found.append(.unknown(version: row.version, name: row.name, newer: row.version > latestVersion))
                continue
            }
            if migration.checksum != row.checksum {
                found.append(
                    .edited(
                        version: row.version, name: migration.name, recorded: row.checksum,
                        current: migration.checksum))
            }
        }
        for migration in known where !appliedVersions.contains(migration.version) {
            if let later = recorded.first(where: { $0.version > migration.version }) {
                found.append(.gap(version: migration.version, name: migration.name, later: later.version))
            }
        }
        return found.sorted { $0.version < $1.version }
    }

    /// Checks that `migrations` is one increasing history of positive versions.
    static func validate(_ migrations: [Migration]) throws(MigrationError) {
        var previous = 0
        for migration in migrations {
            guard migration.version > previous else {
                throw .invalidMigrationList(
                    "version \(migration.version) (\(migration.name)) does not follow version \(previous)")
            }
            previous = migration.version
        }
    }
}
