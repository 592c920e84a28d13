import Foundation
import SwitchboardChat
import SwitchboardReaders
import SwitchboardRouting
import Testing

/// Presence in the database: a node's heartbeat writes its whole view
/// (new operators' rows, its connections, everyone's grace), forgets
/// nodes that went silent, and finds the workspaces with work; statuses,
/// capacities and presence read back.
@Suite struct PresenceQueryTests {
    static let settings = RoutingSettings(offlineGraceSeconds: 30, heartbeatSeconds: 5)

    private func connection(
        _ workspace: String, _ id: String, role: String = "operator", count: Int = 1
    )
        -> NodeConnection
    {
        NodeConnection(
            workspaceID: workspace, staff: Participant(id: id, role: role, name: "N \(id)"), connections: count)
    }

    private func rows(_ fixture: ReadersFixture, _ sql: String) throws -> [[String?]] {
        try fixture.admin.query(sql).rows
    }

    @Test func aHeartbeatWritesTheNodesWholeViewAndGivesTheLeaversTheirGrace() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let workspace = fixture.workspaceID
        let first = [connection(workspace, "op-ken", count: 2), connection(workspace, "ad-ann", role: "admin")]
        #expect(try fixture.queries.heartbeat(node: "node-a", connections: first, settings: Self.settings).isEmpty)
        #expect(
            try rows(fixture, "SELECT id, name, role FROM operators ORDER BY id")
                == [["ad-ann", "N ad-ann", "admin"], ["op-ken", "N op-ken", "operator"]],
            "operators new to the database are recorded, with their workspace")
        #expect(
            try rows(fixture, "SELECT node_id, operator_id, connections::text FROM operator_connections ORDER BY 2")
                == [["node-a", "ad-ann", "1"], ["node-a", "op-ken", "2"]])
        let grace =
            "SELECT id FROM operators WHERE connected_until BETWEEN now() + interval '29 s' AND now() + interval '31 s' ORDER BY id"
        #expect(try rows(fixture, grace) == [["ad-ann"], ["op-ken"]])

        // Ann's last connection here closed a while ago: its grace runs from this beat.
        try fixture.admin.query("UPDATE operators SET connected_until = now() + interval '3 s' WHERE id = 'ad-ann'")
        _ = try fixture.queries.heartbeat(
            node: "node-a", connections: [connection(workspace, "op-ken")], settings: Self.settings)
        #expect(try rows(fixture, "SELECT operator_id FROM operator_connections") == [["op-ken"]])
        #expect(try rows(fixture, grace) == [["ad-ann"], ["op-ken"]])

        // Another node that has not beaten for ten heartbeats is gone, with its connections.
        _ = try fixture.queries.heartbeat(
            node: "node-b", connections: [connection(workspace, "op-olga")], settings: Self.settings)
        try fixture.admin.query(
            "UPDATE gateway_nodes SET heartbeat_at = now() - interval '51 s' WHERE node_id = 'node-b'")
        _ = try fixture.queries.heartbeat(
            node: "node-a", connections: [connection(workspace, "op-ken")], settings: Self.settings)
        #expect(try rows(fixture, "SELECT node_id FROM gateway_nodes") == [["node-a"]])
        #expect(try rows(fixture, "SELECT operator_id FROM operator_connections") == [["op-ken"]])
    }

    @Test func aHeartbeatFindsTheWorkspacesWithWork() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let workspace = fixture.workspaceID
        let session = try fixture.queries.createSession(workspaceID: workspace, visitorID: "v-1", title: nil)
        try fixture.append(session: session.id, body: "hello")
        let beat = { () throws -> [String] in
            try fixture.queries.heartbeat(
                node: "node-a", connections: [self.connection(workspace, "op-ken")], settings: Self.settings)
        }
        #expect(try beat().isEmpty, "a queue, but nobody online")
        #expect(try fixture.queries.setOperatorStatus(workspaceID: workspace, operatorID: "op-ken", status: .online))
        #expect(try beat() == [workspace], "a queue and someone to take from it")
        var manual = Self.settings
        manual.mode = .manual
        #expect(
            try fixture.queries.heartbeat(node: "node-a", connections: [], settings: manual).isEmpty,
            "manual mode routes nothing")
    }

    @Test func statusCapacityAndPresenceReadBack() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let workspace = fixture.workspaceID
        _ = try fixture.queries.heartbeat(
            node: "node-a", connections: [connection(workspace, "op-ken")], settings: Self.settings)
        #expect(try fixture.queries.setOperatorStatus(workspaceID: workspace, operatorID: "op-ken", status: .away))
        #expect(try fixture.queries.setOperatorCapacity(workspaceID: workspace, operatorID: "op-ken", capacity: 9))
        #expect(
            try !fixture.queries.setOperatorStatus(workspaceID: workspace, operatorID: "op-nobody", status: .online))
        let presence = try fixture.queries.operatorPresence(
            workspaceID: workspace, operatorID: nil, defaultCapacity: 5, liveSeconds: 11)
        let seen = try #require(presence.first?.lastSeenAt, "its latest connection")
        #expect(
            presence == [
                OperatorPresence(
                    id: "op-ken", name: "N op-ken", role: "operator", status: .away, connected: true, activeSessions: 0,
                    capacity: 9, lastAssignedAt: nil, capacityIsDefault: false, lastSeenAt: seen)
            ])
        try fixture.admin.query("UPDATE gateway_nodes SET heartbeat_at = now() - interval '12 s'")
        #expect(
            try fixture.queries.operatorPresence(
                workspaceID: workspace, operatorID: "op-ken", defaultCapacity: 5, liveSeconds: 11
            ).first?.connected == false, "its node stopped answering")
        #expect(try fixture.queries.setOperatorCapacity(workspaceID: workspace, operatorID: "op-ken", capacity: nil))
        let defaulted = try fixture.queries.operatorPresence(
            workspaceID: workspace, operatorID: "op-ken", defaultCapacity: 5, liveSeconds: 11
        ).first
        #expect(defaulted?.capacity == 5 && defaulted?.capacityIsDefault == true, "no capacity of its own: the default")
    }
}
