import Foundation
import SwitchboardPostgres
import Testing

/// The real PostgreSQL that scripts/test starts (SWITCHBOARD_DATABASE_URL).
/// Tests that need it fail, rather than skip, when it is missing.
enum TestDatabase {
    static func url() throws -> String {
        try #require(
            ProcessInfo.processInfo.environment["SWITCHBOARD_DATABASE_URL"],
            "SWITCHBOARD_DATABASE_URL is not set: run the tests through scripts/test, which starts PostgreSQL")
    }

    static func connect() throws -> PostgresConnection {
        try PostgresConnection(url())
    }
}
