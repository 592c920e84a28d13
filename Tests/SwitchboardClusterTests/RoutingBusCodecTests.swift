import SwitchboardCluster
import SwitchboardRouting
import Testing

/// Routing's news on the bus (docs/routing.md, "Presence and availability
/// travel"): presence and queue snapshots decode to what was sent; a
/// malformed one is an error; too big for PostgreSQL's notifications, it
/// goes as a hint to read.
@Suite struct RoutingBusCodecTests {
    static let workspace = "0b1c2d3e-0000-4000-8000-000000000001"

    static let team = [
        OperatorPresence(
            id: "op-ken", name: "Ken \"K\"", role: "operator", status: .online, connected: true, activeSessions: 2,
            capacity: 5, lastAssignedAt: "2026-11-25T01:00:00.000Z"),
        OperatorPresence(
            id: "ad-ann", name: nil, role: "admin", status: .offline, connected: false, activeSessions: 0,
            capacity: 3, lastAssignedAt: nil),
    ]

    private func roundTrip(_ event: BusEvent) throws -> BusEvent {
        var encoder = BusEncoder(node: "node-a")
        return try BusDecoder.decode(encoder.encode(event)).event
    }

    @Test func presenceQueueAndHintsSurviveTheTrip() throws {
        let events: [BusEvent] = [
            .presence(workspaceID: Self.workspace, operators: Self.team, complete: true),
            .presence(workspaceID: Self.workspace, operators: [Self.team[0]], complete: false),
            .presence(workspaceID: Self.workspace, operators: [], complete: true),
            .queue(
                RoutingSnapshot(
                    workspaceID: Self.workspace, queue: ["aaaaaaaa-0000-4000-8000-000000000001", "b"], queueLength: 9,
                    availableOperators: 0)),
            .queue(RoutingSnapshot(workspaceID: Self.workspace, queue: [], queueLength: 0, availableOperators: 3)),
            .routingStale(workspaceID: Self.workspace),
        ]
        for event in events { #expect(try roundTrip(event) == event) }
        #expect(BusEvent.routingStale(workspaceID: "w").routingWorkspaceID == "w")
        #expect(BusEvent.routingStale(workspaceID: "w").sessionID == nil)
    }

    @Test func malformedRoutingNewsIsAnError() {
        let head = #"{"v":1,"n":"node-b","ts":1,"#
        for body in [
            #""t":"p","w":"w","o":[["op","Ken","operator","busy",true,1,5,null]]}"#,
            #""t":"p","w":"w","o":[["op","Ken","operator","online","yes",1,5,null]]}"#,
            #""t":"p","w":"w","o":[["op","Ken","operator","online",true,1,5]]}"#,
            #""t":"p","o":[]}"#,
            #""t":"q","w":"w","q":[1],"l":1,"a":0}"#,
            #""t":"q","w":"w","q":[],"a":0}"#,
            #""t":"y"}"#,
        ] {
            #expect(throws: BusDecodeError.self, "\(body)") { try BusDecoder.decode(Array((head + body).utf8)) }
        }
    }
}
