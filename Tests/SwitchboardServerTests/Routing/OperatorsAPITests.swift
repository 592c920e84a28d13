import Foundation
import SwitchboardAuth
import Testing

@testable import SwitchboardServer

/// `GET` and `PATCH /api/v1/operators` in-process against a real PostgreSQL.
@Suite(.serialized) struct OperatorsAPITests {
    private func token(_ fixture: ChatFixture, _ role: Role, _ sub: String) -> String {
        TestTokens.make(role: role, workspace: fixture.workspace, sub: sub, name: sub)
    }

    private func patch(_ fixture: ChatFixture, _ id: String, _ body: String, as token: String) throws -> HTTPReply {
        try HTTPTestClient.request(fixture.gateway, "PATCH", "/api/v1/operators/\(id)", token: token, body: body)
    }

    /// Waits (the pass runs on a reader thread after the answer) until `sql` counts `expected`.
    private func eventually(_ fixture: ChatFixture, _ sql: String, _ expected: Int) throws -> Int {
        var seen = -1
        for _ in 0..<100 {
            seen = try fixture.count(sql, [fixture.workspace])
            if seen == expected { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return seen
    }

    @Test func aRaisedCapacityDrainsTheQueueAndTheListShowsIt() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let ken = try fixture.client(.operator, "op-ken", name: "Ken")
        let answer = try ken.request(["type": "presence.set", "status": "online"])
        #expect(answer["type"] as? String == "presence")
        let admin = token(fixture, .admin, "ad-ada")
        #expect(try patch(fixture, "op-ken", #"{"capacity":1}"#, as: admin).status == 200)
        let visitor = try fixture.client(.visitor, "v-1")
        for i in 0..<3 {
            let sessionID = try fixture.createSession(visitor, title: "s\(i)")
            _ = try visitor.request([
                "type": "send", "session_id": sessionID, "client_msg_id": "m\(i)", "body": "hello",
            ])
        }
        let assigned =
            "SELECT count(*) FROM chat_sessions WHERE workspace_id = $1::uuid AND assigned_operator_id = 'op-ken'"
        #expect(try eventually(fixture, assigned, 1) == 1)

        let raised = try patch(fixture, "op-ken", #"{"capacity":3}"#, as: admin)
        #expect(raised.status == 200, "\(raised.errorMessage)")
        let body = raised.json["operator"] as? [String: Any]
        #expect(body?["capacity"] as? Int == 3 && body?["capacity_default"] as? Bool == false)
        #expect(try eventually(fixture, assigned, 3) == 3, "the raise drained the queue")

        let list = try HTTPTestClient.request(
            fixture.gateway, "GET", "/api/v1/operators", token: token(fixture, .operator, "op-ken"))
        #expect(list.status == 200)
        let team = list.json["operators"] as? [[String: Any]] ?? []
        let kenRow = team.first { $0["id"] as? String == "op-ken" }
        #expect(kenRow?["status"] as? String == "online")
        #expect(kenRow?["connected"] as? Bool == true)
        #expect(kenRow?["active_sessions"] as? Int == 3)
        #expect(kenRow?["capacity"] as? Int == 3)
        #expect(kenRow?["last_assigned_at"] is String)

        let reset = try patch(fixture, "op-ken", #"{"capacity":null}"#, as: admin)
        let resetBody = reset.json["operator"] as? [String: Any]
        #expect(resetBody?["capacity"] as? Int == 5 && resetBody?["capacity_default"] as? Bool == true)
    }

    @Test func aPatchReachesTheConsolesFollowingPresence() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let olga = try fixture.client(.operator, "op-olga", name: "Olga")
        _ = try olga.request(["type": "presence.set", "status": "online"])
        let listed = try olga.request(["type": "presence.subscribe"])
        #expect(listed["type"] as? String == "presence.list")
        #expect(try patch(fixture, "op-olga", #"{"capacity":7}"#, as: token(fixture, .admin, "ad-ada")).status == 200)
        var told: [String: Any]?
        for _ in 0..<5 {
            let update = try olga.next("presence.updated")
            let person = update["operator"] as? [String: Any]
            if person?["capacity"] as? Int == 7 {
                told = person
                break
            }
        }
        #expect(told?["id"] as? String == "op-olga" && told?["status"] as? String == "online")
    }

    @Test func whoMayChangeWhat() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        _ = try fixture.client(.operator, "op-ken", name: "Ken").request(["type": "presence.set", "status": "online"])
        _ = try fixture.client(.operator, "op-olga", name: "Olga").request(["type": "presence.set", "status": "online"])
        let ken = token(fixture, .operator, "op-ken")
        let own = try patch(fixture, "op-ken", #"{"status":"away"}"#, as: ken)
        #expect(own.status == 200 && (own.json["operator"] as? [String: Any])?["status"] as? String == "away")
        #expect(try patch(fixture, "op-olga", #"{"status":"away"}"#, as: ken).status == 403)
        #expect(try patch(fixture, "op-ken", #"{"capacity":9}"#, as: ken).status == 403)
        let admin = token(fixture, .admin, "ad-ada")
        #expect(try patch(fixture, "op-olga", #"{"status":"offline","capacity":2.0}"#, as: admin).status == 200)
        #expect(try patch(fixture, "op-nobody", #"{"status":"online"}"#, as: admin).status == 404)
        let visitor = token(fixture, .visitor, "v-1")
        #expect(try patch(fixture, "op-ken", #"{"status":"online"}"#, as: visitor).status == 403)
        for bad in [
            #"{}"#, #"{"capacity":0}"#, #"{"capacity":1001}"#, #"{"capacity":"3"}"#, #"{"capacity":2.5}"#,
            #"{"status":"busy"}"#, #"{"name":"x"}"#, "[]",
        ] {
            #expect(try patch(fixture, "op-ken", bad, as: admin).status == 400, "\(bad)")
        }
        let olga = try HTTPTestClient.request(fixture.gateway, "GET", "/api/v1/operators", token: ken)
        let row = (olga.json["operators"] as? [[String: Any]] ?? []).first { $0["id"] as? String == "op-olga" }
        #expect(row?["status"] as? String == "offline" && row?["capacity"] as? Int == 2)
    }
}
