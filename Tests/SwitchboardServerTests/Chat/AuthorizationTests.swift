import Foundation
import SwitchboardAuth
import Testing

/// Visitors see only their own sessions; nobody sees another workspace.
@Suite(.serialized) struct AuthorizationTests {
    @Test func aVisitorCannotJoinOrSendToAnotherVisitorsSession() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let owner = try fixture.client(.visitor, "v-owner")
        let sessionID = try fixture.createSession(owner)
        let intruder = try fixture.client(.visitor, "v-intruder")
        #expect(try intruder.request(["type": "join", "session_id": sessionID]).code == "forbidden")
        #expect(
            try intruder.request(["type": "send", "session_id": sessionID, "client_msg_id": "x", "body": "hi"]).code
                == "forbidden")
        #expect(try intruder.request(["type": "typing", "session_id": sessionID, "state": true]).code == "forbidden")
        #expect(try intruder.request(["type": "read", "session_id": sessionID, "seq": 0]).code == "forbidden")
        #expect(try intruder.request(["type": "session.close", "session_id": sessionID]).code == "forbidden")
        #expect(try intruder.request(["type": "session.assign", "session_id": sessionID]).code == "forbidden")
        #expect(try intruder.request(["type": "inbox.subscribe"]).code == "forbidden")
        #expect(try fixture.count("SELECT count(*)::int FROM chats WHERE session_id = $1::uuid", [sessionID]) == 0)
        // The owner's conversation goes on untouched.
        #expect(
            try owner.request(["type": "send", "session_id": sessionID, "client_msg_id": "m", "body": "ok"]).seq == 1)
    }

    /// The join's access check runs on a reader thread; frames pipelined behind
    /// the join must not act in the session before its answer.
    @Test func framesPipelinedBehindAForbiddenJoinAreRefused() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let owner = try fixture.client(.visitor, "v-owner")
        let sessionID = try fixture.createSession(owner)
        let intruder = try fixture.client(.visitor, "v-intruder")
        intruder.send(["type": "join", "ref": "j", "session_id": sessionID])
        intruder.send(["type": "send", "ref": "s", "session_id": sessionID, "client_msg_id": "x", "body": "hi"])
        intruder.send(["type": "typing", "ref": "t", "session_id": sessionID, "state": true])
        intruder.send(["type": "read", "ref": "r", "session_id": sessionID, "seq": 0])
        var codes: [String: String] = [:]
        while codes.count < 4 {
            let frame = try intruder.next()
            if let ref = frame["ref"] as? String { codes[ref] = frame["code"] as? String ?? frame["type"] as? String }
        }
        #expect(codes == ["j": "forbidden", "s": "forbidden", "t": "forbidden", "r": "forbidden"])
        #expect(try fixture.count("SELECT count(*)::int FROM chats WHERE session_id = $1::uuid", [sessionID]) == 0)
        #expect(
            try fixture.count("SELECT count(*)::int FROM chat_read_positions WHERE session_id = $1::uuid", [sessionID])
                == 0)
        // The owner heard nothing from the intruder.
        #expect(try owner.request(["type": "ping"]).type == "pong")
        #expect(owner.pending.allSatisfy { $0.type != "typing" && $0.type != "message" && $0.type != "read" })
    }

    @Test func anOperatorOfAnotherWorkspaceCannotSeeJoinAssignOrList() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let outsider = try fixture.client(.operator, "op-b", workspace: fixture.otherWorkspace)
        let inbox = try outsider.request(["type": "inbox.subscribe"])
        #expect(inbox.type == "inbox" && (inbox["sessions"] as? [Any])?.isEmpty == true)
        let visitor = try fixture.client(.visitor, "v-a")
        let sessionID = try fixture.createSession(visitor)
        _ = try visitor.request(["type": "send", "session_id": sessionID, "client_msg_id": "m", "body": "secret"])
        #expect(try outsider.request(["type": "join", "session_id": sessionID]).code == "forbidden")
        #expect(try outsider.request(["type": "session.assign", "session_id": sessionID]).code == "forbidden")
        #expect(try outsider.request(["type": "session.close", "session_id": sessionID]).code == "forbidden")
        #expect(
            try outsider.request(["type": "send", "session_id": sessionID, "client_msg_id": "x", "body": "hi"]).code
                == "forbidden")
        let listed = try outsider.request(["type": "inbox.subscribe"])
        #expect((listed["sessions"] as? [Any])?.isEmpty == true)
        // Nothing of workspace A ever reached B's connection.
        #expect(outsider.pending.allSatisfy { $0.type != "session.updated" && $0.type != "message" })
        #expect(try outsider.request(["type": "ping"]).type == "pong")
        #expect(outsider.pending.allSatisfy { $0.type != "session.updated" && $0.type != "message" })
        // A session that does not exist is not found, not forbidden.
        #expect(
            try outsider.request(["type": "join", "session_id": UUID().uuidString.lowercased()]).code == "not_found")
    }

    @Test func expiredOrTamperedTokensCloseWith4001() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let expired = TestTokens.make(role: .visitor, workspace: fixture.workspace, sub: "v", ttl: 60, issuedAgo: 3600)
        let tampered = TestTokens.make(role: .visitor, workspace: fixture.workspace, sub: "v") + "x"
        let foreign = TestTokens.make(
            role: .admin, workspace: fixture.workspace, sub: "v", secret: "another-secret-that-is-32-bytes-long")
        for token in [expired, tampered, foreign] {
            let client = try fixture.anonymousClient()
            let reply = try client.request(["type": "hello", "token": token])
            #expect(reply.code == "unauthorized")
            #expect(client.waitForClose() == 4001)
        }
    }

    @Test func anythingBeforeHelloClosesWith4001() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let client = try fixture.anonymousClient()
        client.send(["type": "ping"])
        #expect(client.waitForClose() == 4001)
    }

    /// Nothing before the auth timeout; the close when it passes.
    @Test func silenceAfterTheUpgradeClosesWith4001() throws {
        let fixture = try ChatFixture { $0.authTimeoutSeconds = 1 }
        defer { fixture.stop() }
        let client = try fixture.anonymousClient()
        fixture.embedded.advance(by: 999)
        #expect((client.raw as! EmbeddedClient).available == 0)
        fixture.embedded.advance(by: 1)
        #expect(client.waitForClose() == 4001)
    }
}
