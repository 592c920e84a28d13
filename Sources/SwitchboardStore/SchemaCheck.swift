import SwitchboardPostgres

/// The start-up check of `serve`: the gateway never answers requests against
/// a schema that is missing tables (behind) or that nobody tested (diverged).
public enum SchemaCheck {
    /// Returns the schema version when the database at `url` has exactly this
    /// build's history; throws `.unreachable`, `.diverged` or `.behind`.
    @discardableResult
    public static func require(url: String, migrations: [Migration] = Migrations.all) throws(MigrationError) -> Int {
        try require(MigrationRunner(url: url, migrations: migrations).history())
    }

    @discardableResult
    public static func require(
        connection: PostgresConnection, migrations: [Migration] = Migrations.all
    ) throws(MigrationError) -> Int {
        try require(MigrationRunner(connection: connection, migrations: migrations).history())
    }

    static func require(_ history: MigrationHistory) throws(MigrationError) -> Int {
        let divergences = history.divergences
        guard divergences.isEmpty else { throw .diverged(divergences) }
        guard history.pending.isEmpty else {
            throw .behind(current: history.currentVersion, required: history.latestVersion)
        }
        return history.currentVersion
    }
}
