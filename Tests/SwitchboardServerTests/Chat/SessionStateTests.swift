import Foundation
import SwitchboardAuth
import Testing

/// What consoles learn of a session, in-process: versions that only
/// grow, the assignment seen at once, and deletions.
@Suite(.serialized) struct SessionStateTests {
    @Test func theAssignersFirstUpdateAlreadySaysAssignedAndVersionsGrow() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let ken = try fixture.client(.operator, "op-ken", name: "Ken")
        #expect(try ken.request(["type": "inbox.subscribe"]).type == "inbox")
        let visitor = try fixture.client(.visitor, "v-1", name: "Vera")
        let sessionID = try fixture.createSession(visitor)
        _ = try ken.next("session.updated")  // the new session
        visitor.send(["type": "send", "session_id": sessionID, "client_msg_id": "m1", "body": "hi"])
        _ = try visitor.next("ack")
        let assign = try ken.request(["type": "session.assign", "session_id": sessionID])
        #expect(assign.type == "session.updated")
        let answered = assign["session"] as? [String: Any]
        #expect(answered?["status"] as? String == "assigned")
        #expect((answered?["assigned_operator"] as? [String: Any])?["id"] as? String == "op-ken")
        // Every session.updated Ken got, in order, has a higher version than the one before.
        let seen = ken.pending.filter { $0.type == "session.updated" } + [assign]
        let versions = seen.compactMap { ($0["session"] as? [String: Any])?["version"] as? Int }
        #expect(versions.count == seen.count && versions == versions.sorted() && Set(versions).count == versions.count)
    }

    @Test func aDeletionReachesConsolesOnceAsDeleted() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let ken = try fixture.client(.operator, "op-ken", name: "Ken")
        #expect(try ken.request(["type": "inbox.subscribe"]).type == "inbox")
        let visitor = try fixture.client(.visitor, "v-1")
        let sessionID = try fixture.createSession(visitor)
        let created = try ken.next("session.updated")
        let token = TestTokens.make(role: .admin, workspace: fixture.workspace, sub: "admin-1")
        let reply = try HTTPTestClient.request(
            fixture.gateway, "DELETE", "/api/v1/sessions/\(sessionID)", token: token)
        #expect(reply.status == 204)
        let deleted = try ken.next("session.updated")["session"] as? [String: Any]
        #expect(deleted?["id"] as? String == sessionID)
        #expect(deleted?["deleted"] as? Bool == true)
        let before = (created["session"] as? [String: Any])?["version"] as? Int ?? .max
        #expect((deleted?["version"] as? Int ?? 0) > before)
        // The visitor, joined to it, hears of it too.
        let toVisitor = try visitor.next("session.updated")["session"] as? [String: Any]
        #expect(toVisitor?["deleted"] as? Bool == true)
    }
}
