import Foundation
import SwitchboardAuth
import SwitchboardPostgres
import SwitchboardTestSupport

@testable import SwitchboardServer

/// A gateway on its own migrated throwaway database, for one chat test: the
/// handlers in-process (`EmbeddedGateway`), or, with `live`, a gateway on a
/// socket for what only the kernel shows (a peer that stops reading).
final class ChatFixture {
    static let secret = "chat-test-secret-at-least-32-bytes-long"
    let database: TestDatabase
    let gateway: any TestGateway
    let workspace = UUID().uuidString.lowercased()
    let otherWorkspace = UUID().uuidString.lowercased()

    /// `attachments`: where the gateway stores attachments (none: not served);
    /// `attachmentSizes`: its windows and pieces (in-process gateways only).
    init(
        live: Bool = false, attachments: (any AttachmentBackend)? = nil,
        attachmentSizes: AttachmentService.Sizes = .standard, _ configure: (inout Configuration) -> Void = { _ in }
    ) throws {
        let database = try TestDatabase(migrated: true)
        self.database = database
        let chat: (inout Configuration) -> Void = { configuration in
            configuration.databaseURL = database.url
            configuration.jwtSecret = Self.secret
            configure(&configuration)
        }
        do {
            gateway =
                live
                ? try RunningServer(attachments: attachments, chat)
                : try EmbeddedGateway(attachments: attachments, attachmentSizes: attachmentSizes, chat)
        } catch {
            database.drop()
            throw error
        }
    }

    /// The live gateway's port (`live` fixtures only).
    var port: UInt16 { (gateway as! RunningServer).port }

    /// The in-process gateway (all but `live` fixtures), to move its clock.
    var embedded: EmbeddedGateway { gateway as! EmbeddedGateway }

    func stop() {
        gateway.stop()
        database.drop()
    }

    func client(_ role: Role, _ sub: String, name: String? = nil, workspace: String? = nil) throws -> ChatClient {
        try ChatClient(
            stream(), token: TestTokens.make(role: role, workspace: workspace ?? self.workspace, sub: sub, name: name))
    }

    /// A client that says `hello` with a token of the test's own making.
    func client(token: String) throws -> ChatClient {
        try ChatClient(stream(), token: token)
    }

    /// A client that has upgraded and not yet said `hello`.
    func anonymousClient() throws -> ChatClient {
        try ChatClient(stream(), token: nil)
    }

    /// A chat client's connection: it waits up to 10 s for a frame, as `ChatClient(port:)` does.
    private func stream() throws -> any ClientStream {
        if let running = gateway as? RunningServer { return try RawClient(port: running.port, timeoutSeconds: 10) }
        return (gateway as! EmbeddedGateway).client(timeoutSeconds: 10)
    }

    /// A visitor's new session; returns its id.
    func createSession(_ visitor: ChatClient, title: String = "Order question") throws -> String {
        let reply = try visitor.request(["type": "session.create", "title": title])
        guard reply["type"] as? String == "session", let session = reply["session"] as? [String: Any],
            let id = session["id"] as? String
        else { throw TestFailure("session.create failed: \(reply)") }
        return id
    }

    /// Joins and returns the `joined` reply; the replayed messages stay queued in the client.
    @discardableResult
    func join(_ client: ChatClient, _ sessionID: String, since: Int? = nil) throws -> [String: Any] {
        var frame: [String: Any] = ["type": "join", "session_id": sessionID]
        if let since { frame["since_seq"] = since }
        let reply = try client.request(frame)
        guard reply["type"] as? String == "joined" else { throw TestFailure("join failed: \(reply)") }
        return reply
    }

    func count(_ sql: String, _ parameters: [String?]) throws -> Int {
        let connection = try database.connect()
        return try connection.query(sql, parameters).int(0, 0) ?? -1
    }

    /// Waits (up to 10 s) until the gateway's search indexer has taken every
    /// backlog row: what was stored before the call is then searchable.
    func waitForSearchIndex() throws {
        let deadline = Date().addingTimeInterval(10)
        while try count("SELECT count(*) FROM search_backlog", []) > 0 {
            guard Date() < deadline else { throw TestFailure("the search backlog did not drain in 10 s") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}

extension [String: Any] {
    var type: String? { self["type"] as? String }
    var code: String? { self["code"] as? String }
    var seq: Int? { self["seq"] as? Int }
}
