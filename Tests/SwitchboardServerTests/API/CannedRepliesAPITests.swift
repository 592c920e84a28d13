import Foundation
import SwitchboardAuth
import Testing

@testable import SwitchboardServer

/// `/api/v1/canned-replies` in-process against a real PostgreSQL: saved,
/// listed by shortcut, changed and deleted by a workspace's operators and
/// admins, unseen and untouchable from any other workspace.
@Suite(.serialized) struct CannedRepliesAPITests {
    private func token(_ workspace: String, _ role: Role = .operator, _ sub: String = "op-ken") -> String {
        TestTokens.make(role: role, workspace: workspace, sub: sub, name: sub)
    }

    private func call(
        _ fixture: ChatFixture, _ method: String, _ path: String = "/api/v1/canned-replies", body: String? = nil,
        token: String
    ) throws -> HTTPReply {
        try HTTPTestClient.request(fixture.gateway, method, path, token: token, body: body)
    }

    private func shortcuts(_ reply: HTTPReply) -> [String] {
        ((reply.json["canned_replies"] as? [[String: Any]]) ?? []).compactMap { $0["shortcut"] as? String }
    }

    @Test func savedListedChangedAndDeletedWithinTheWorkspace() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let ken = token(fixture.workspace)
        let created = try call(
            fixture, "POST", body: #"{"shortcut":"refund","body":"Hi {{visitor.name}}, your refund is on its way."}"#,
            token: ken)
        #expect(created.status == 201, "\(created.errorMessage)")
        let reply = try #require(created.json["canned_reply"] as? [String: Any])
        let id = try #require(reply["id"] as? String)
        #expect(reply["body"] as? String == "Hi {{visitor.name}}, your refund is on its way.")
        #expect(reply["created_by"] as? String == "op-ken")
        #expect(
            try call(
                fixture, "POST", body: #"{"shortcut":"hello","body":"Hello!"}"#, token: token(fixture.workspace, .admin)
            )
            .status == 201)

        // Every colleague sees both, by shortcut; a visitor of the workspace sees nothing.
        let listed = try call(fixture, "GET", token: token(fixture.workspace, .operator, "op-ann"))
        #expect(listed.status == 200 && shortcuts(listed) == ["hello", "refund"])
        #expect(try call(fixture, "GET", token: token(fixture.workspace, .visitor, "v-1")).status == 403)

        // A shortcut is the workspace's once.
        let twice = try call(fixture, "POST", body: #"{"shortcut":"refund","body":"again"}"#, token: ken)
        #expect(twice.status == 409 && twice.errorCode == "conflict", "\(twice.status)")
        let renamedOnto = try call(
            fixture, "PATCH", "/api/v1/canned-replies/\(id)", body: #"{"shortcut":"hello"}"#, token: ken)
        #expect(renamedOnto.status == 409)

        let changed = try call(
            fixture, "PATCH", "/api/v1/canned-replies/\(id.uppercased())",
            body: #"{"body":"Refunded, {{visitor.name}}."}"#,
            token: ken)
        #expect(changed.status == 200, "\(changed.errorMessage)")
        #expect((changed.json["canned_reply"] as? [String: Any])?["body"] as? String == "Refunded, {{visitor.name}}.")
        #expect((changed.json["canned_reply"] as? [String: Any])?["shortcut"] as? String == "refund")

        // Another workspace: its own list, and this one's reply is not there for it.
        let other = token(UUID().uuidString.lowercased(), .admin, "ad-zed")
        #expect(shortcuts(try call(fixture, "GET", token: other)).isEmpty)
        #expect(
            try call(fixture, "PATCH", "/api/v1/canned-replies/\(id)", body: #"{"body":"x"}"#, token: other).status
                == 404)
        #expect(try call(fixture, "DELETE", "/api/v1/canned-replies/\(id)", token: other).status == 404)
        #expect(try call(fixture, "POST", body: #"{"shortcut":"refund","body":"theirs"}"#, token: other).status == 201)
        #expect(shortcuts(try call(fixture, "GET", token: ken)) == ["hello", "refund"])

        #expect(try call(fixture, "DELETE", "/api/v1/canned-replies/\(id)", token: ken).status == 204)
        #expect(try call(fixture, "DELETE", "/api/v1/canned-replies/\(id)", token: ken).status == 404)
        #expect(shortcuts(try call(fixture, "GET", token: ken)) == ["hello"])
    }

    @Test func onlyWellFormedRepliesAreSaved() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let ken = token(fixture.workspace)
        let long = String(repeating: "é", count: 2049)
        for bad in [
            #"{"shortcut":"Refund","body":"x"}"#,
            #"{"shortcut":"-refund","body":"x"}"#,
            #"{"shortcut":"re fund","body":"x"}"#,
            #"{"shortcut":"","body":"x"}"#,
            #"{"shortcut":"\#(String(repeating: "a", count: 33))","body":"x"}"#,
            #"{"shortcut":"refund","body":"  \n "}"#,
            #"{"shortcut":"refund","body":"a\u0000b"}"#,
            #"{"shortcut":"refund","body":"\#(long)"}"#,
            #"{"shortcut":"refund"}"#,
            #"{"body":"x"}"#,
            #"{"shortcut":"refund","body":"x","title":"Refund"}"#,
            #"{"shortcut":7,"body":"x"}"#,
            #"{"shortcut":"refund","body":null}"#,
        ] {
            let reply = try call(fixture, "POST", body: bad, token: ken)
            #expect(reply.status == 400, "\(bad): \(reply.status) \(reply.errorMessage)")
        }
        #expect(shortcuts(try call(fixture, "GET", token: ken)).isEmpty)
        let id = UUID().uuidString
        #expect(try call(fixture, "PATCH", "/api/v1/canned-replies/\(id)", body: "{}", token: ken).status == 400)
        #expect(
            try call(
                fixture, "PATCH", "/api/v1/canned-replies/\(id)", body: #"{"body":null,"shortcut":"a"}"#, token: ken
            )
            .status == 400)
        #expect(
            try call(fixture, "PATCH", "/api/v1/canned-replies/\(id)", body: #"{"body":"x"}"#, token: ken).status == 404
        )
        #expect(try call(fixture, "DELETE", "/api/v1/canned-replies/not-a-uuid", token: ken).status == 404)
    }
}
