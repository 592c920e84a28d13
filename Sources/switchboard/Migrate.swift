import ArgumentParser
import SwitchboardStore
import SwitchboardSystem

/// `switchboard migrate`: schema migrations (docs/protocol.md "Command line"). The work
/// is in SwitchboardStore's MigrationTool; this only parses arguments and
/// turns a MigrationError into a message on stderr and exit status 1.
struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply, inspect, verify or roll back the database schema.",
        subcommands: [Up.self, Status.self, Verify.self, Down.self])

    struct Connection: ParsableArguments {
        @Option(name: .customLong("database-url"), help: "PostgreSQL URL (or SWITCHBOARD_DATABASE_URL).")
        var databaseURL: String?

        func url() throws(MigrationError) -> String {
            try MigrationTool.databaseURL(
                flag: databaseURL, environment: ThisProcess.environment("SWITCHBOARD_DATABASE_URL"))
        }
    }

    struct Up: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Apply every pending migration.")
        @OptionGroup var connection: Connection
        @Option(name: .customLong("to"), help: "Stop after this version (default: the newest this build knows).")
        var target: Int?

        func run() throws {
            try Migrate.reporting { () throws(MigrationError) in
                try MigrationTool.up(url: connection.url(), through: target, output: Migrate.say)
            }
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List each migration: applied (when), pending, unknown to this build, or edited.")
        @OptionGroup var connection: Connection

        func run() throws {
            try Migrate.reporting { () throws(MigrationError) in
                try MigrationTool.status(url: connection.url(), output: Migrate.say)
            }
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the migration guide's verification checks; exit non-zero naming each failure.")
        @OptionGroup var connection: Connection

        func run() throws {
            var passed = false
            try Migrate.reporting { () throws(MigrationError) in
                passed = try MigrationTool.verify(url: connection.url(), output: Migrate.say)
            }
            if !passed { throw ExitCode(1) }
        }
    }

    struct Down: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Roll back to version N. Deletes data: requires --yes.")
        @OptionGroup var connection: Connection

        @Option(name: .customLong("to"), help: "The version to roll back to (0 = before the first migration).")
        var target: Int

        @Flag(help: "Confirm that rolling back deletes data.")
        var yes = false

        func run() throws {
            try Migrate.reporting { () throws(MigrationError) in
                try MigrationTool.down(url: connection.url(), to: target, confirmed: yes, output: Migrate.say)
            }
        }
    }

    static func say(_ line: String) {
        print(line)
    }

    /// Runs `body`; a MigrationError becomes one line on stderr and exit status 1 (no stack trace).
    static func reporting(_ body: () throws(MigrationError) -> Void) throws {
        do {
            try body()
        } catch {
            ThisProcess.writeStandardError("error: \(error)\n")
            throw ExitCode(1)
        }
    }
}
