import ArgumentParser
import SwitchboardAttachmentStore
import SwitchboardServer
import SwitchboardStore
import SwitchboardSystem

/// `switchboard attachments`: upkeep of stored attachments (docs/protocol.md "Command line").
struct Attachments: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Maintain stored attachments.", subcommands: [Purge.self])

    struct Purge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Delete attachments never sent within attachments.orphan_ttl_s, uploads abandoned mid-way, and "
                + "the attachments of sessions deleted more than attachments.retention_days ago.")

        @Option(help: "Configuration file (TOML). Default: config/switchboard.toml if present.")
        var config: String?

        @Option(name: .customLong("database-url"), help: "PostgreSQL URL (or SWITCHBOARD_DATABASE_URL).")
        var databaseURL: String?

        func run() throws {
            let configuration: Configuration
            do {
                configuration = try ConfigurationLoader.load(
                    file: config, environment: ThisProcess.environment,
                    overrides: ConfigurationOverrides(databaseURL: databaseURL), validating: false)
            } catch {
                throw ValidationError("\(error)")
            }
            guard !configuration.databaseURL.isEmpty else {
                throw fail("no database: pass --database-url or set SWITCHBOARD_DATABASE_URL")
            }
            ThisProcess.setEnvironmentDefault("PGCONNECT_TIMEOUT", "10")
            do {
                try SchemaCheck.require(url: configuration.databaseURL)
            } catch {
                throw fail("\(error)")
            }
            let storage: AttachmentStorage =
                configuration.attachmentsStorage == "filesystem"
                ? .filesystem(path: configuration.attachmentsPath) : .postgres
            // Never started: the purges run on this thread, on a connection of their own.
            let store = AttachmentStore(
                databaseURL: configuration.databaseURL, storage: storage, workers: 1, queueCapacity: 1, inspector: nil)
            do {
                let ttl = configuration.attachmentsOrphanTTLSeconds
                let orphans = try store.purgeOrphans(olderThanSeconds: ttl)
                print("purged \(orphans) orphaned attachment(s): never sent within \(ttl) s, or abandoned mid-upload")
                let days = configuration.attachmentsRetentionDays
                let deleted = try store.purgeDeleted(retentionDays: days)
                print("purged \(deleted) attachment(s) of sessions deleted more than \(days) day(s) ago")
            } catch {
                throw fail("\(error)")
            }
        }

        /// One line on stderr and exit status 1 (no stack trace).
        private func fail(_ message: String) -> ExitCode {
            ThisProcess.writeStandardError("error: \(message)\n")
            return ExitCode(1)
        }
    }
}
