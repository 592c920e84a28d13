import Foundation
import SwitchboardChat
import SwitchboardReaders
import SwitchboardRouting
import Testing

/// The queries behind the routing frames, against PostgreSQL: which
/// workspaces have someone available (`welcome`), `connected` through the
/// grace (`presence.updated`), and a visitor's address (`session.contact`).
@Suite struct RoutingFramesQueryTests {
    static let settings = RoutingSettings(offlineGraceSeconds: 30, heartbeatSeconds: 5)

    private func connection(_ workspace: String, _ id: String) -> NodeConnection {
        NodeConnection(workspaceID: workspace, staff: Participant(id: id, role: "operator", name: id), connections: 1)
    }

    @Test func workspacesWithSomeoneAvailableAreThoseWithAnOnlineOperatorWithRoom() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let workspace = fixture.workspaceID
        let queries = fixture.queries
        func available() throws -> Set<String> {
            try queries.workspacesWithAvailableOperators(workspaceID: workspace, defaultCapacity: 1)
        }
        _ = try queries.heartbeat(
            node: "node-a", connections: [connection(workspace, "op-ken")], settings: Self.settings)
        #expect(try available().isEmpty, "connected, but has not chosen online")
        _ = try queries.setOperatorStatus(workspaceID: workspace, operatorID: "op-ken", status: .online)
        #expect(try available() == [workspace])
        #expect(try queries.workspacesWithAvailableOperators(workspaceID: nil, defaultCapacity: 1).contains(workspace))

        // Its one place taken: nobody available.
        let session = try queries.createSession(workspaceID: workspace, visitorID: "v-1", title: nil)
        _ = try queries.assign(sessionID: session.id, operatorID: "op-ken", operatorName: "Ken")
        #expect(try available().isEmpty)
        _ = try queries.setOperatorCapacity(workspaceID: workspace, operatorID: "op-ken", capacity: 2)
        #expect(try available() == [workspace], "a raise makes room")

        // Its grace over: nobody available.
        try fixture.admin.query("UPDATE operators SET connected_until = now() - interval '1 s'")
        #expect(try available().isEmpty)
    }

    @Test func anOperatorStaysConnectedThroughItsGraceAfterItsLastConnectionClosed() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let workspace = fixture.workspaceID
        let queries = fixture.queries
        func connected() throws -> Bool? {
            try queries.operatorPresence(
                workspaceID: workspace, operatorID: "op-ken", defaultCapacity: 5, liveSeconds: 11
            ).first?.connected
        }
        _ = try queries.heartbeat(
            node: "node-a", connections: [connection(workspace, "op-ken")], settings: Self.settings)
        #expect(try connected() == true)
        // Its last connection closes (a page reload): still connected, for the grace.
        _ = try queries.heartbeat(node: "node-a", connections: [], settings: Self.settings)
        #expect(try connected() == true, "a reload does not flicker in the team list")
        try fixture.admin.query("UPDATE operators SET connected_until = now() - interval '1 s'")
        #expect(try connected() == false, "the grace is over")
    }

    @Test func aVisitorsAddressIsMergedIntoItsOwnSessionsContact() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let queries = fixture.queries
        let session = try queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        try fixture.admin.query(
            "UPDATE chat_sessions SET contact = '{\"name\": \"Vera\"}' WHERE id = '\(session.id)'")
        #expect(
            try queries.recordContact(sessionID: session.id, visitorID: "v-2", email: "x@example.com") == nil,
            "another visitor's session")
        let stored = try #require(
            try queries.recordContact(sessionID: session.id, visitorID: "v-1", email: "vera@example.com"))
        let contact = try #require(stored.contact)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(contact.utf8)) as? [String: String])
        #expect(object == ["name": "Vera", "email": "vera@example.com"])
        #expect(stored.version > session.version, "a change every node tells apart from the old state")
        let again = try #require(
            try queries.recordContact(sessionID: session.id, visitorID: "v-1", email: "vera@example.org"))
        #expect(again.contact?.contains("vera@example.org") == true && again.contact?.contains("example.com") == false)
        try fixture.softDelete(session: session.id)
        #expect(try queries.recordContact(sessionID: session.id, visitorID: "v-1", email: "vera@example.com") == nil)
    }
}
