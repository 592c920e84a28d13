import Foundation
import SwitchboardPostgres
import SwitchboardStore
import SwitchboardTestSupport
import Testing

@testable import SwitchboardServer

/// Answers that wait for the reader pool (/readyz, /api/...) still reach a
/// client that half-closed, or a gateway that began to shut down, meanwhile.
/// In-process but for the grace period, which is the live server's.
@Suite(.serialized) struct PendingAnswerTests {
    /// One response read off `client`: its head, and its body by Content-Length.
    private func readResponse(_ client: any ClientStream) -> (head: String, body: String) {
        let head = client.readHead()
        let lengthLine = head.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
        let length = lengthLine.flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        return (head, String(decoding: client.read(count: length), as: UTF8.self))
    }

    private func statusLine(of head: String) -> String { head.components(separatedBy: "\r\n").first ?? "" }

    /// Reads to the end and checks that the peer closed (EOF) with nothing more,
    /// well before the client's 5 s read timeout.
    private func expectPromptEOF(_ client: any ClientStream, sourceLocation: SourceLocation = #_sourceLocation) {
        let started = Date()
        let rest = client.readToEnd()
        #expect(rest.isEmpty, "unexpected bytes after the response", sourceLocation: sourceLocation)
        #expect(Date().timeIntervalSince(started) < 1, "no prompt close", sourceLocation: sourceLocation)
    }

    @Test(arguments: ["/readyz", "/api/v1/admin/live-chat/conversations"])
    func halfClosingRightAfterTheRequestStillGetsTheAnswer(path: String) throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let token = TestTokens.make(role: .operator, workspace: fixture.workspace, sub: "op-ken", name: "Ken")
        let client = try fixture.gateway.connect()
        client.send("GET \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n\r\n")
        client.shutdownWrite()
        let (head, body) = readResponse(client)
        #expect(statusLine(of: head) == "HTTP/1.1 200 OK", "got: \(head)")
        let json = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
        #expect(json != nil, "incomplete body: \(body)")
        expectPromptEOF(client)
    }

    @Test func halfClosingWhileReadyzWaitsForTheDatabaseGetsTheWholeAnswerThenEOF() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let lock = try SchemaLock(fixture.database)
        defer { lock.release() }
        let client = try fixture.gateway.connect()
        client.send("GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n")
        try lock.waitForBlockedReader()
        client.shutdownWrite()  // in-process, the gateway sees the FIN at once, while the answer is pending
        lock.release()
        let (head, body) = readResponse(client)
        #expect(statusLine(of: head) == "HTTP/1.1 200 OK", "got: \(head)")
        #expect(body.hasPrefix(#"{"status":"ready","schema_version":\#(Migrations.latestVersion),"node_id":""#))
        #expect(
            body.contains(#","bus":"postgres","bus_state":""#) && body.hasSuffix(#""}"#), "the whole answer: \(body)")
        expectPromptEOF(client)
    }

    /// What `Server.shutdown` asks of each connection, while the answer is pending.
    @Test func shutdownWhileReadyzWaitsForTheDatabaseSendsTheAnswerThenCloses() throws {
        let fixture = try ChatFixture { $0.shutdownGraceSeconds = 10 }
        defer { fixture.stop() }
        let gateway = fixture.embedded
        let lock = try SchemaLock(fixture.database)
        defer { lock.release() }
        let client = gateway.client()
        client.send("GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n")
        try lock.waitForBlockedReader()
        gateway.beginShutdown()  // the connection is asked to close while the answer is pending
        #expect(client.connection.isOpen && client.available == 0)
        lock.release()
        let (head, body) = readResponse(client)
        #expect(statusLine(of: head) == "HTTP/1.1 200 OK", "got: \(head)")
        #expect(head.lowercased().contains("connection: close"))
        #expect(body.hasPrefix(#"{"status":"ready","schema_version":\#(Migrations.latestVersion),"node_id":""#))
        #expect(
            body.contains(#","bus":"postgres","bus_state":""#) && body.hasSuffix(#""}"#), "the whole answer: \(body)")
        expectPromptEOF(client)
    }

    /// The grace period is the live server's: its loops stop, whatever is pending.
    @Test func anAnswerThatOutlastsTheShutdownGracePeriodDoesNotHoldTheGateway() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let running = try RunningServer { configuration in
            configuration.databaseURL = database.url
            configuration.jwtSecret = ChatFixture.secret
            configuration.shutdownGraceSeconds = 1
        }
        var shutDown = false
        defer {
            if !shutDown { running.server.shutdown() }
            running.server.wait()
        }
        let lock = try SchemaLock(database)
        defer { lock.release() }  // before wait(): the blocked reader thread must finish to stop
        let client = try RawClient(port: running.port, timeoutSeconds: 8)
        client.send("GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n")
        try lock.waitForBlockedReader()
        let started = Date()
        running.server.shutdown()
        shutDown = true
        let received = client.readToEnd()
        let elapsed = Date().timeIntervalSince(started)
        #expect(received.isEmpty)
        #expect(elapsed >= 0.5 && elapsed < 4, "closed after \(elapsed) s; the grace period is 1 s")
    }
}

/// An ACCESS EXCLUSIVE lock on schema_migrations in an open transaction: the
/// readiness query (SELECT max(version) FROM schema_migrations) waits for it,
/// so a /readyz answer stays pending until `release`.
private final class SchemaLock {
    private let database: TestDatabase
    private let connection: PostgresConnection
    private var held = true

    init(_ database: TestDatabase) throws {
        self.database = database
        connection = try database.connect()
        try connection.execute("BEGIN")
        try connection.execute("LOCK TABLE schema_migrations IN ACCESS EXCLUSIVE MODE")
    }

    /// Waits until a reader backend is blocked on the lock: the answer is pending.
    /// (Asked on another connection: inside the lock's transaction,
    /// pg_stat_activity would keep showing its first snapshot.)
    func waitForBlockedReader() throws {
        let monitor = try database.connect()
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            let blocked = try monitor.query(
                """
                SELECT count(*) FROM pg_stat_activity
                WHERE datname = current_database() AND application_name = 'switchboard-reader'
                AND wait_event_type = 'Lock'
                """
            ).int(0, 0)
            if (blocked ?? 0) > 0 { return }
            usleep(10_000)
        }
        throw TestFailure("no reader query became blocked on schema_migrations within 5 s")
    }

    func release() {
        guard held else { return }
        held = false
        try? connection.execute("COMMIT")
    }
}
