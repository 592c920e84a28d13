import Foundation
import SwitchboardAttachmentStore
import SwitchboardAttachments
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A gateway process killed (SIGKILL) in the middle of an upload leaves no
/// attachment anyone can see, only bytes with no row, which the orphan purge
/// deletes; the node started again serves nothing of it (docs/attachments.md).
@Suite(.serialized) struct KilledUploadTests {
    static let secret = String(repeating: "s", count: 32)

    @Test(arguments: ["postgres", "filesystem"]) func aKilledGatewayLeavesNoVisibleHalfFile(storage: String) throws {
        let database = try TestDatabase(migrated: true)
        let db = try database.connect()
        let workspace = UUID().uuidString.lowercased()
        let session = UUID().uuidString.lowercased()
        try db.query("INSERT INTO workspaces (id, name) VALUES ($1, 'w')", [workspace])
        try db.query(
            "INSERT INTO chat_sessions (id, workspace_id, user_id) VALUES ($1, $2, 'visitor-1')", [session, workspace])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-killed-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let toml = "[attachments]\nstorage = \"\(storage)\"\npath = \"\(folder)\"\n"
        let gateway = try GatewayProcess(databaseURL: database.url, toml: toml)
        let token = TestTokens.make(role: .visitor, workspace: workspace, sub: "visitor-1", secret: Self.secret)
        let client = try RawClient(port: gateway.port, timeoutSeconds: 10)
        let body = sample(.pdf, count: 3_000_000)
        client.send(
            "POST /api/v1/sessions/\(session)/attachments?filename=label.pdf HTTP/1.1\r\nHost: x\r\n"
                + "Authorization: Bearer \(token)\r\nContent-Type: application/pdf\r\n"
                + "Content-Length: \(body.count)\r\n\r\n")
        client.send(Array(body[..<1_200_000]))
        // Wait until the worker has stored part of it, then kill the gateway.
        let deadline = Date().addingTimeInterval(20)
        func partStored() throws -> Bool {
            storage == "postgres"
                ? try db.query("SELECT count(*) FROM attachment_chunks").rows[0][0].flatMap { Int($0) } ?? 0 >= 2
                : (try? FileManager.default.contentsOfDirectory(atPath: folder + "/tmp"))?.isEmpty == false
        }
        while try !partStored() && Date() < deadline { usleep(20_000) }
        #expect(try partStored(), "part of the upload was stored before the kill")
        gateway.process.stop(signal: SIGKILL)

        #expect(try db.query("SELECT count(*) FROM attachments").rows[0][0] == "0", "no row, so nothing visible")
        let id: String
        if storage == "postgres" {
            id = try #require(try db.query("SELECT DISTINCT attachment_id::text FROM attachment_chunks").rows.first?[0])
        } else {
            let part = try #require(try FileManager.default.contentsOfDirectory(atPath: folder + "/tmp").first)
            id = String(part.prefix(36))
        }
        // The node again: the half upload's URL, even signed, finds nothing.
        let again = try GatewayProcess(databaseURL: database.url, toml: toml)
        defer { again.stop() }
        let signer = AttachmentURLSigner(jwtSecret: Array(Self.secret.utf8))
        let path = signer.path(id: id, variant: .original, expires: Int64(Date().timeIntervalSince1970) + 600)
        let reader = try RawClient(port: again.port, timeoutSeconds: 10)
        reader.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(reader.readReply().status == 404)
        // The purge takes the abandoned bytes (past their grace; 0 here).
        let store = AttachmentStore(
            databaseURL: database.url, storage: storage == "postgres" ? .postgres : .filesystem(path: folder),
            workers: 1, queueCapacity: 4, inspector: nil)
        #expect(try store.purgeOrphans(olderThanSeconds: 86400, abandonedAfterSeconds: 0) == 1)
        #expect(try db.query("SELECT count(*) FROM attachment_chunks").rows[0][0] == "0")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: folder + "/tmp"))?.isEmpty ?? true)
    }
}
