/// Where a database stands against this build: one entry per version that
/// either side knows, in version order.
public struct MigrationStatus: Sendable {
    public enum State: Sendable, Equatable {
        case applied(at: String)
        case pending
        /// Recorded by the database, unknown to this build.
        case unknown(appliedAt: String)
        /// Recorded with a checksum that differs from this build's SQL.
        case edited(appliedAt: String, recorded: String, current: String)
    }

    public struct Entry: Sendable, Equatable {
        public let version: Int
        public let name: String
        public let state: State
    }

    public let entries: [Entry]
    public let currentVersion: Int
    public let latestVersion: Int
    public let divergences: [MigrationDivergence]

    public init(history: MigrationHistory) {
        var entries: [Entry] = []
        let recorded = Dictionary(history.recorded.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
        let known = Set(history.known.map(\.version))
        for migration in history.known {
            guard let row = recorded[migration.version] else {
                entries.append(Entry(version: migration.version, name: migration.name, state: .pending))
                continue
            }
            let state: State =
                row.checksum == migration.checksum
                ? .applied(at: row.appliedAt)
                : .edited(appliedAt: row.appliedAt, recorded: row.checksum, current: migration.checksum)
            entries.append(Entry(version: migration.version, name: migration.name, state: state))
        }
        for row in history.recorded where !known.contains(row.version) {
            entries.append(Entry(version: row.version, name: row.name, state: .unknown(appliedAt: row.appliedAt)))
        }
        self.entries = entries.sorted { $0.version < $1.version }
        currentVersion = history.currentVersion
        latestVersion = history.latestVersion
        divergences = history.divergences
    }

    public var pending: [Entry] { entries.filter { $0.state == .pending } }

    /// Nothing pending and nothing diverged: what `serve` requires.
    public var isUpToDate: Bool { divergences.isEmpty && pending.isEmpty }
}
