import Foundation
import SwitchboardTestSupport
import Testing

/// `switchboard attachments purge`, the built binary, with the configured storage and periods.
@Suite struct PurgeCommandTests {
    private func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, String, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try ChildProcess.builtExecutable("switchboard"))
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

    @Test func purgesWithTheConfiguredStorageAndPeriods() throws {
        let fixture = try StoreFixture(.filesystem)
        defer { fixture.close() }
        let orphan = try fixture.upload(testBytes(1000, seed: 61)).get()
        let recent = try fixture.upload(testBytes(1000, seed: 62)).get()
        try fixture.db.query(
            "UPDATE attachments SET created_at = now() - interval '3 hours' WHERE id = $1", [orphan.id])
        let deletedSession = newUUID()
        try fixture.addSession(deletedSession)
        let ofDeleted = try fixture.upload(testBytes(1000, seed: 63), session: deletedSession).get()
        try fixture.db.query(
            "UPDATE chat_sessions SET deleted_at = now() - interval '8 days' WHERE id = $1", [deletedSession])
        let config = fixture.folder + ".toml"
        defer { try? FileManager.default.removeItem(atPath: config) }
        try """
        [attachments]
        storage = "filesystem"
        path = "\(fixture.folder)"
        orphan_ttl_s = 7200
        retention_days = 7
        """.write(toFile: config, atomically: true, encoding: .utf8)

        let (status, output, errors) = try run(
            ["attachments", "purge", "--config", config, "--database-url", fixture.database.url])
        #expect(status == 0, "\(errors)")
        #expect(output.contains("purged 1 orphaned attachment(s): never sent within 7200 s"))
        #expect(output.contains("purged 1 attachment(s) of sessions deleted more than 7 day(s) ago"))
        #expect(try fixture.nothingStored(orphan.id) && fixture.nothingStored(ofDeleted.id))
        #expect(fixture.files() == ["\(recent.id.prefix(2))/\(recent.id)"])

        let (again, secondOutput, _) = try run(
            ["attachments", "purge", "--config", config],
            environment: ["SWITCHBOARD_DATABASE_URL": fixture.database.url])
        #expect(again == 0)
        #expect(secondOutput.contains("purged 0 orphaned") && secondOutput.contains("purged 0 attachment(s)"))
    }

    @Test func failuresSayWhy() throws {
        let (noDatabase, _, noDatabaseError) = try run(["attachments", "purge", "--config", "/dev/null"])
        #expect(noDatabase == 1)
        #expect(noDatabaseError.contains("--database-url"))

        let config = NSTemporaryDirectory() + "sb-purge-\(newUUID()).toml"
        defer { try? FileManager.default.removeItem(atPath: config) }
        try "[attachments]\nstorage = \"s3\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let (badStorage, _, badStorageError) = try run(["attachments", "purge", "--config", config])
        #expect(badStorage == 64)
        #expect(badStorageError.contains("attachments.storage"))

        let database = try TestDatabase()
        defer { database.drop() }
        let (unmigrated, _, unmigratedError) = try run(
            ["attachments", "purge", "--config", "/dev/null", "--database-url", database.url])
        #expect(unmigrated == 1)
        #expect(unmigratedError.contains("error:") && !unmigratedError.contains("Fatal error"))
    }
}
