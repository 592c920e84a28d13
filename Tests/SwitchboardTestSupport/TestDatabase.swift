import Foundation
import SwitchboardPostgres
import SwitchboardStore

/// Databases for integration tests, on the real PostgreSQL that scripts/test
/// starts (SWITCHBOARD_DATABASE_URL). Each test gets its own database, so
/// tests run in parallel without seeing each other's rows. Tests that need it
/// fail, rather than skip, when the server is missing.
public final class TestDatabase: @unchecked Sendable {
    public let name: String
    public let url: String
    private let adminURL: String

    public struct Missing: Error, CustomStringConvertible {
        public let description =
            "SWITCHBOARD_DATABASE_URL is not set: run the tests through scripts/test, which starts PostgreSQL"
    }

    public static func adminURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["SWITCHBOARD_DATABASE_URL"], !url.isEmpty else {
            throw Missing()
        }
        return url
    }

    /// Creates an empty database; `migrated` applies every migration of this build.
    public init(migrated: Bool = false) throws {
        adminURL = try Self.adminURL()
        name = "sbtest_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try PostgresConnection(adminURL)
        try admin.execute("CREATE DATABASE \(name)")
        url = PostgresURL.replacingDatabase(in: adminURL, with: name)
        if migrated {
            // Through the runner, as production does; a failure leaves no database behind.
            do {
                try MigrationRunner(connection: connect()).up()
            } catch {
                drop()
                throw error
            }
        }
    }

    public func connect() throws -> PostgresConnection { try PostgresConnection(url) }

    /// Drops the database, ending any connection still using it.
    public func drop() {
        guard let admin = try? PostgresConnection(adminURL) else { return }
        _ = try? admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name])
        try? admin.execute("DROP DATABASE IF EXISTS \(name)")
    }
}
