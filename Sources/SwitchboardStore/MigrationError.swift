import SwitchboardPostgres

/// Why migrating, checking or verifying the schema stopped. Every case reads
/// as a complete sentence for an operator: the CLI prints it as it is.
public enum MigrationError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Neither `--database-url` nor `SWITCHBOARD_DATABASE_URL` was given.
    case noDatabaseURL
    /// The database cannot be reached.
    case unreachable(PostgresError)
    /// A statement of the runner itself (lock, history) failed.
    case database(PostgresError)
    /// The database's recorded history differs from this build's.
    case diverged([MigrationDivergence])
    /// The database is behind this build (serve refuses it).
    case behind(current: Int, required: Int)
    /// A migration's SQL (or its down SQL) failed; its transaction was rolled back.
    case failed(version: Int, name: String, direction: Direction, error: PostgresError)
    /// `down --to` named a version the database cannot go down to.
    case invalidTarget(Int, current: Int)
    /// `migrate up --to N` past what this build knows (or below 1).
    case unknownTarget(Int, newest: Int)
    /// `down` was asked for without `--yes`.
    case notConfirmed(target: Int, current: Int)
    /// The migration list given to the runner is not one increasing history.
    case invalidMigrationList(String)

    public enum Direction: String, Sendable, Equatable {
        case up, down
    }

    public var description: String {
        switch self {
        case .noDatabaseURL:
            return "no database URL: pass --database-url URL or set SWITCHBOARD_DATABASE_URL"
        case .unreachable(let error):
            return "database unreachable: \(error)"
        case .database(let error):
            return "database error: \(error)"
        case .diverged(let differences):
            let list = differences.map(\.description).joined(separator: "; ")
            return "the database's migration history differs from this build's, refusing to continue: \(list)"
        case .behind(let current, let required):
            return "schema is at version \(current), this build needs \(required): run `switchboard migrate up`"
        case .failed(let version, let name, let direction, let error):
            let verb = direction == .up ? "failed" : "failed to roll back"
            return "migration \(version) \(name) \(verb) (rolled back, nothing of it applied): \(error)"
        case .invalidTarget(let target, let current):
            return "cannot go down to version \(target): the schema is at version \(current)"
                + " and the target must be between 0 and \(current)"
        case .unknownTarget(let target, let newest):
            return "cannot migrate up to version \(target): this build knows versions 1 to \(newest)"
        case .notConfirmed(let target, let current):
            return "refusing to go down from version \(current) to \(target) without --yes: "
                + "rolling back deletes data (sessions, read positions, message numbering), "
                + "and migrating up again does not bring it back"
        case .invalidMigrationList(let reason):
            return "invalid migration list: \(reason)"
        }
    }
}
