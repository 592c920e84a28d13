import Foundation
import SwitchboardAuth
import SwitchboardPostgres
import SwitchboardTestSupport
import Testing

/// The routing frames across two gateway processes on one database and the
/// PostgreSQL bus: a console on one node sees presence changed on the
/// other; a visitor waiting on one node hears its place, and hears it move
/// when a close on the other node frees capacity.
@Suite(.serialized) struct RoutingFramesClusterTests {
    /// Reads `client`'s frames of `type` until one satisfies `condition` (the client's timeout ends it).
    private func frame(
        _ client: ChatClient, _ type: String, where condition: ([String: Any]) -> Bool
    ) throws -> [String: Any] {
        while true {
            let frame = try client.next(type)
            if condition(frame) { return frame }
        }
    }

    private func operatorState(_ frame: [String: Any]) -> [String: Any] { frame["operator"] as? [String: Any] ?? [:] }

    @Test func presenceAndAvailabilityCrossNodes() throws {
        let cluster = try RoutingClusterTests.Cluster(nodes: 2)
        defer { cluster.stop() }
        try cluster.admin.query("INSERT INTO workspaces (id, name) VALUES ($1::uuid, 'w')", [cluster.workspace])
        try cluster.admin.query(
            "INSERT INTO operators (workspace_id, id, name, role, capacity) VALUES ($1::uuid, 'ken', 'ken', 'operator', 1)",
            [cluster.workspace])
        let operators = try cluster.operators([("ken", 0)])
        let ken = try #require(operators["ken"])

        // A console on node 1 follows presence: Ken is online, connected, with room for one.
        let ann = try cluster.client(.admin, "ann", node: 1)
        let list = try ann.request(["type": "presence.subscribe"])
        #expect(list["type"] as? String == "presence.list")
        let listed = (list["operators"] as? [[String: Any]])?.first { $0["id"] as? String == "ken" }
        #expect(listed?["status"] as? String == "online" && listed?["connected"] as? Bool == true)
        #expect(listed?["capacity"] as? Int == 1 && listed?["active_sessions"] as? Int == 0)

        // Ken steps away on node 0: node 1's console hears it.
        let started = Date()
        _ = try ken.request(["type": "presence.set", "status": "away"])
        let away = try frame(ann, "presence.updated") { operatorState($0)["status"] as? String == "away" }
        print("routing frames: presence.updated crossed nodes in \(Date().timeIntervalSince(started)) s")
        #expect(operatorState(away)["id"] as? String == "ken")
        _ = try ken.request(["type": "presence.set", "status": "online"])
        _ = try frame(ann, "presence.updated") { operatorState($0)["status"] as? String == "online" }

        // Three visitors on node 1, one after the other: the first is Ken's, the others wait, in order.
        var visitors: [(client: ChatClient, session: String)] = []
        for index in 0..<3 {
            let visitor = try cluster.client(.visitor, "v-\(index)", node: 1)
            #expect(visitor.welcome["operators_available"] is Bool, "welcome says whether anyone is there")
            let created = try visitor.request(["type": "session.create"])
            let session = try #require((created["session"] as? [String: Any])?["id"] as? String)
            _ = try visitor.next("availability")
            visitor.send(["type": "send", "session_id": session, "client_msg_id": "m", "body": "Hello?"])
            _ = try visitor.next("ack")
            visitors.append((visitor, session))
            if index == 0 { try cluster.waitFor("the first assigned") { try cluster.assigned == 1 } }
        }
        _ = try frame(ann, "presence.updated") { operatorState($0)["active_sessions"] as? Int == 1 }
        let second = try frame(visitors[1].client, "availability") { $0["queue_position"] as? Int == 1 }
        #expect(second["operators_available"] as? Bool == false)
        _ = try frame(visitors[2].client, "availability") { $0["queue_position"] as? Int == 2 }

        // Ken closes the first on node 0: the second is his, the third (on node 1) moves up.
        let closed = try ken.request(["type": "session.close", "session_id": visitors[0].session])
        #expect(closed["type"] as? String == "session.updated")
        let moved = try frame(visitors[2].client, "availability") { $0["queue_position"] as? Int == 1 }
        #expect(moved["session_id"] as? String == visitors[2].session)
        try cluster.waitFor("the second assigned") {
            try cluster.count(
                "SELECT count(*) FROM chat_sessions WHERE workspace_id = $1::uuid AND status = 'assigned' AND id = $2::uuid",
                [cluster.workspace, visitors[1].session]) == 1
        }
        // The visitors never hear of presence.
        for visitor in visitors {
            #expect(!visitor.client.takePending().contains { ($0["type"] as? String)?.hasPrefix("presence") == true })
        }
    }
}
