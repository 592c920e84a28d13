import Foundation
import SwitchboardAuth
import SwitchboardPostgres
import SwitchboardServer
import SwitchboardTestSupport

/// A gateway on its own migrated throwaway database, for one chat test.
final class ChatFixture {
    static let secret = "chat-test-secret-at-least-32-bytes-long"
    let database: TestDatabase
    let running: RunningServer
    let workspace = UUID().uuidString.lowercased()
    let otherWorkspace = UUID().uuidString.lowercased()

    init(_ configure: (inout Configuration) -> Void = { _ in }) throws {
        let database = try TestDatabase(migrated: true)
        self.database = database
        do {
            running = try RunningServer { configuration in
                configuration.databaseURL = database.url
                configuration.jwtSecret = Self.secret
                configure(&configuration)
            }
        } catch {
            database.drop()
            throw error
        }
    }

    var port: UInt16 { running.port }

    func stop() {
        running.stop()
        database.drop()
    }

    func client(_ role: Role, _ sub: String, name: String? = nil, workspace: String? = nil) throws -> ChatClient {
        try ChatClient(
            port: port, token: TestTokens.make(role: role, workspace: workspace ?? self.workspace, sub: sub, name: name)
        )
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
}

extension [String: Any] {
    var type: String? { self["type"] as? String }
    var code: String? { self["code"] as? String }
    var seq: Int? { self["seq"] as? Int }
}
