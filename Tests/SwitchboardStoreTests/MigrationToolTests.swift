import Foundation
import SwitchboardStore
import SwitchboardTestSupport
import Testing

/// `switchboard migrate`: its logic through MigrationTool, plus one smoke test of the built binary.
@Suite struct MigrationToolTests {
    final class Lines: @unchecked Sendable {
        var all: [String] = []
        func write(_ line: String) { all.append(line) }
        var text: String { all.joined(separator: "\n") }
    }

    @Test func databaseURLComesFromTheFlagThenTheEnvironment() throws {
        #expect(
            try MigrationTool.databaseURL(flag: "postgresql://a", environment: "postgresql://b") == "postgresql://a")
        #expect(try MigrationTool.databaseURL(flag: nil, environment: "postgresql://b") == "postgresql://b")
        let error = #expect(throws: MigrationError.noDatabaseURL) {
            try MigrationTool.databaseURL(flag: "", environment: nil)
        }
        #expect(error?.description.contains("--database-url") == true)
        #expect(error?.description.contains("SWITCHBOARD_DATABASE_URL") == true)
    }

    @Test func upThroughAVersionStopsThereAndRefusesOneThisBuildDoesNotKnow() throws {
        let database = try TestDatabase()
        defer { database.drop() }
        let out = Lines()
        try MigrationTool.up(url: database.url, through: 2, output: out.write)
        #expect(
            out.all == [
                "applied 1 base_workspaces_and_chats", "applied 2 create_chat_sessions",
                "schema is at version 2 (2 applied)",
            ])
        let status = Lines()
        try MigrationTool.status(url: database.url, output: status.write)
        #expect(status.all.last == "schema is at version 2, this build needs \(latest): \(latest - 2) pending")
        for target in [0, latest + 1] {
            let error = #expect(throws: MigrationError.unknownTarget(target, newest: latest)) {
                try MigrationTool.up(url: database.url, through: target, output: out.write)
            }
            #expect(
                error?.description == "cannot migrate up to version \(target): this build knows versions 1 to \(latest)"
            )
        }
    }

    @Test func upStatusVerifyAndDownReport() throws {
        let database = try TestDatabase()
        defer { database.drop() }
        let out = Lines()
        try MigrationTool.up(url: database.url, migrations: migrations(upTo: 3), output: out.write)
        #expect(
            out.all.prefix(3) == [
                "applied 1 base_workspaces_and_chats", "applied 2 create_chat_sessions",
                "applied 3 add_session_id_to_chats",
            ])

        let status = Lines()
        try MigrationTool.status(url: database.url, output: status.write)
        #expect(status.all.count == latest + 2)
        #expect(status.all[0].hasPrefix("version"))
        #expect(status.all[3].hasPrefix("3") && status.all[3].contains("applied 20"))
        #expect(status.all[4].hasPrefix("4") && status.all[4].hasSuffix("pending"))
        #expect(status.all.last == "schema is at version 3, this build needs \(latest): \(latest - 3) pending")

        let verify = Lines()
        #expect(try !MigrationTool.verify(url: database.url, output: verify.write))
        #expect(verify.text.contains("FAILED schema_version"))

        let again = Lines()
        try MigrationTool.up(url: database.url, output: again.write)
        try MigrationTool.up(url: database.url, output: again.write)
        #expect(
            again.all
                == Migrations.all.dropFirst(3).map { "applied \($0.version) \($0.name)" } + [
                    "schema is at version \(latest) (\(latest - 3) applied)",
                    "schema is up to date at version \(latest)",
                ])
        let ok = Lines()
        #expect(try MigrationTool.verify(url: database.url, output: ok.write))
        #expect(ok.all == ["OK: every verification check passed"])

        let refused = #expect(throws: MigrationError.notConfirmed(target: 3, current: latest)) {
            try MigrationTool.down(url: database.url, to: 3, confirmed: false, output: { _ in })
        }
        #expect(refused?.description.contains("--yes") == true)
        #expect(refused?.description.contains("deletes data") == true)
        let down = Lines()
        try MigrationTool.down(url: database.url, to: 3, confirmed: true, output: down.write)
        #expect(
            down.all.first?.hasPrefix("warning: rolling back from version \(latest) to 3; this deletes data") == true)
        #expect(
            Array(down.all.dropFirst())
                == Migrations.all.dropFirst(3).reversed().map { "rolled back \($0.version) \($0.name)" }
                + ["schema is at version 3"])
    }

    @Test func statusMarksUnknownAndEditedMigrations() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        try database.connect().query(
            "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, 'from_the_future', 'x')",
            [String(future)])
        let out = Lines()
        try MigrationTool.status(url: database.url, migrations: migrations(editing: 2), output: out.write)
        #expect(out.all[2].contains("edited after it was applied"))
        #expect(
            out.all[latest + 1].hasPrefix("\(future)") && out.all[latest + 1].contains("unknown to this build"))
        #expect(out.all.last?.hasPrefix("diverged:") == true)
    }

    @Test func builtBinaryExitsNonZeroWithAClearMessage() throws {
        let binary = try ChildProcess.builtExecutable("switchboard")
        let database = try TestDatabase()
        defer { database.drop() }

        func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, String, String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
            process.environment = environment
            let (out, err) = (Pipe(), Pipe())
            process.standardOutput = out
            process.standardError = err
            try process.run()
            let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, stdout, stderr)
        }

        let (noURL, _, noURLError) = try run(["migrate", "status"])
        #expect(noURL != 0)
        #expect(noURLError.contains("--database-url") && noURLError.contains("SWITCHBOARD_DATABASE_URL"))

        let (up, upOut, _) = try run(["migrate", "up"], environment: ["SWITCHBOARD_DATABASE_URL": database.url])
        #expect(up == 0)
        #expect(upOut.contains("applied 6 append_messages_by_key"))

        let (down, _, downError) = try run(["migrate", "down", "--to", "2", "--database-url", database.url])
        #expect(down != 0)
        #expect(downError.contains("--yes"))
        #expect(!downError.contains("Fatal error"))

        let (verify, verifyOut, _) = try run(["migrate", "verify", "--database-url", database.url])
        #expect(verify == 0)
        #expect(verifyOut.hasPrefix("OK"))
    }
}
