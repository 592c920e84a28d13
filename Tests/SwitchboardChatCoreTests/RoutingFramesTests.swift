import Foundation
import Logging
import SwitchboardAuth
import SwitchboardChat
import SwitchboardReaders
import SwitchboardRouting
import Testing

@testable import SwitchboardChatCore

/// The routing frames over the fakes (docs/routing.md, "Presence and
/// availability"): who may follow presence, what each console receives and
/// how often, what a visitor is told of availability and when, `welcome`'s
/// `operators_available`, and `session.contact`.
@Suite struct RoutingFramesTests {
    let harness = CoreHarness(loops: 2)
    let store = ManualRoutingStore()
    let routing: RoutingService
    let hours = ScriptedHours()

    init() {
        var logger = Logger(label: "routing-frames-test")
        logger.logLevel = .critical
        routing = RoutingService(
            settings: RoutingSettings(), node: "node-a", store: store, cores: harness.cores, metrics: harness.metrics,
            logger: logger, businessHours: hours)
        harness.cores.routing = routing
        store.queries.team = [Self.ken(.online, active: 1), Self.olga(.away, active: 0)]
    }

    private var workspace: String { CoreHarness.workspace }

    static func ken(_ status: OperatorStatus, active: Int, connected: Bool = true) -> OperatorPresence {
        OperatorPresence(
            id: "op-ken", name: "Ken", role: "operator", status: status, connected: connected, activeSessions: active,
            capacity: 5, lastAssignedAt: nil)
    }

    static func olga(_ status: OperatorStatus, active: Int) -> OperatorPresence {
        OperatorPresence(
            id: "op-olga", name: "Olga", role: "operator", status: status, connected: true, activeSessions: active,
            capacity: 5, lastAssignedAt: nil)
    }

    private func settle() {
        while store.runAll() > 0 { harness.settle() }
        harness.settle()
    }

    /// Two consoles on two loops following presence, their lists taken.
    private func consoles() -> (CoreHarness.Client, CoreHarness.Client) {
        let ken = harness.connect(.operator, "op-ken", name: "Ken", loop: 0)
        let ann = harness.connect(.admin, "ad-ann", name: "Ann", loop: 1)
        ken.send(["type": "presence.subscribe", "ref": "s1"])
        ann.send(["type": "presence.subscribe", "ref": "s2"])
        settle()
        _ = ken.peer.take()
        _ = ann.peer.take()
        return (ken, ann)
    }

    private func updates(_ client: CoreHarness.Client) -> [[String: Any]] {
        client.peer.take().ofType("presence.updated").compactMap { $0["operator"] as? [String: Any] }
    }

    // MARK: presence

    @Test func presenceSubscribeListsEveryOperatorOfTheWorkspace() throws {
        let ken = harness.connect(.operator, "op-ken", name: "Ken")
        ken.send(["type": "presence.subscribe", "ref": "s1"])
        settle()
        let list = try #require(ken.peer.take().ofType("presence.list").first)
        #expect(list["ref"] as? String == "s1")
        let operators = try #require(list["operators"] as? [[String: Any]])
        #expect(operators.map { $0["id"] as? String } == ["op-ken", "op-olga"])
        #expect(operators[0]["status"] as? String == "online" && operators[0]["connected"] as? Bool == true)
        #expect(operators[0]["active_sessions"] as? Int == 1 && operators[0]["capacity"] as? Int == 5)
        #expect(Set(operators[0].keys) == ["id", "name", "status", "connected", "active_sessions", "capacity"])
    }

    @Test func aVisitorMayNotFollowPresenceAndGetsNoPresenceFrames() {
        let vera = harness.connect(.visitor, "v-1")
        vera.send(["type": "presence.subscribe", "ref": "s1"])
        #expect(vera.peer.take().first?["code"] as? String == "forbidden")
        _ = consoles()
        _ = routing.setStatus(.away, of: "op-ken", in: workspace) { _ in }
        store.queries.team = [Self.ken(.away, active: 1), Self.olga(.away, active: 0)]
        settle()
        #expect(vera.peer.take().ofType("presence.updated").isEmpty)
    }

    @Test func aStatusSetReachesEveryConsoleOnceAndTheOtherNodes() throws {
        let (ken, ann) = consoles()
        let outlet = RecordingOutlet()
        harness.cores.cluster = outlet
        store.queries.team = [Self.ken(.away, active: 1), Self.olga(.away, active: 0)]
        _ = routing.setStatus(.away, of: "op-ken", in: workspace) { _ in }
        settle()
        for console in [ken, ann] {
            let seen = updates(console)
            #expect(seen.count == 1)
            #expect(seen.first?["id"] as? String == "op-ken" && seen.first?["status"] as? String == "away")
        }
        #expect(
            outlet.news.contains(
                .presence(workspaceID: workspace, operators: [Self.ken(.away, active: 1)], complete: false)))
        // The same state heard again (the bus, a heartbeat's re-read): nothing new to tell.
        routing.heard(.presence(workspaceID: workspace, operators: [Self.ken(.away, active: 1)], complete: false))
        routing.beat()
        settle()
        #expect(updates(ken).isEmpty && updates(ann).isEmpty)
    }

    @Test func aPassThatGivesFiftySessionsSendsOneFramePerOperatorChanged() throws {
        let (ken, ann) = consoles()
        var result = RoutingPassResult(
            workspaceID: workspace,
            snapshot: RoutingSnapshot(workspaceID: workspace, queue: [], queueLength: 0, availableOperators: 1))
        for index in 0..<50 {
            var session = SessionInfo(
                id: "s\(index)", workspaceID: workspace, visitorID: "v-\(index)", title: "t", status: .assigned,
                assignedOperator: AssignedOperator(id: index % 2 == 0 ? "op-ken" : "op-olga", name: nil), lastSeq: 1,
                lastMessage: nil, createdAt: "2026-11-25T00:00:00.000Z", updatedAt: "2026-11-25T00:00:00.000Z",
                version: 2)
            session.waitingSince = "2026-11-25T00:00:00.000Z"
            result.assigned.append(SessionChange(session: session, event: nil, changed: true))
        }
        store.queries.scripted[workspace] = [result]
        store.queries.team = [Self.ken(.online, active: 26), Self.olga(.online, active: 25)]
        routing.trigger(workspace: workspace)
        settle()
        for console in [ken, ann] {
            let seen = updates(console)
            #expect(seen.map { $0["id"] as? String }.sorted { ($0 ?? "") < ($1 ?? "") } == ["op-ken", "op-olga"])
            #expect(seen.first { $0["id"] as? String == "op-ken" }?["active_sessions"] as? Int == 26)
        }
    }

    @Test func aConsoleThatClosedIsForgotten() {
        let (ken, ann) = consoles()
        ken.close()
        store.queries.team = [Self.ken(.online, active: 2), Self.olga(.away, active: 0)]
        routing.heard(.presence(workspaceID: workspace, operators: [Self.ken(.online, active: 2)], complete: false))
        settle()
        #expect(updates(ann).count == 1)
        ann.close()
        #expect(harness.cores.cores.allSatisfy { $0.presenceWatchers.isEmpty })
        #expect(routing.board.withLock { $0.presenceWorkspaces.isEmpty })
    }

    @Test func theGraceRunningOutIsSeenByTheNextHeartbeat() {
        let (ken, _) = consoles()
        store.queries.team = [Self.ken(.online, active: 1, connected: false), Self.olga(.away, active: 0)]
        routing.beat()
        settle()
        let seen = updates(ken)
        #expect(seen.count == 1 && seen.first?["connected"] as? Bool == false)
    }

    // MARK: welcome and availability

    @Test func welcomeSaysWhetherAnOperatorIsAvailableWithoutARead() {
        store.queries.availableWorkspaces = [workspace]
        routing.beat()
        settle()
        let reads = store.queries.presenceReads
        for (workspace, expected) in [(CoreHarness.workspace, true), (CoreHarness.otherWorkspace, false)] {
            let client = harness.open()
            client.send(["type": "hello", "token": harness.token(.visitor, "v-9", workspace: workspace)])
            let welcome = client.peer.take().first
            #expect(welcome?["type"] as? String == "welcome")
            #expect(welcome?["operators_available"] as? Bool == expected)
        }
        #expect(store.waiting == 0 && store.queries.presenceReads == reads, "no read for a hello")
    }

    @Test func aWaitingVisitorHearsItsPlaceAndWhenItChanges() throws {
        store.queries.team = [Self.ken(.away, active: 1), Self.olga(.away, active: 0)]
        let (vera, session) = harness.visitorWithSession()
        store.queries.queue = ["s-other", session]
        // Its first message's pass tells its place; here the heartbeat's re-read of the queue does.
        routing.beat()
        settle()
        let first = try #require(vera.peer.take().ofType("availability").last)
        #expect(first["session_id"] as? String == session)
        #expect(first["operators_available"] as? Bool == false && first["queue_position"] as? Int == 2)
        #expect(first["open"] == nil)

        // The head moves: one frame with the new place.
        routing.heard(
            .queue(RoutingSnapshot(workspaceID: workspace, queue: [session], queueLength: 1, availableOperators: 0)))
        settle()
        let moved = vera.peer.take().ofType("availability")
        #expect(moved.count == 1 && moved.first?["queue_position"] as? Int == 1)

        // The same snapshot again: nothing.
        routing.heard(
            .queue(RoutingSnapshot(workspaceID: workspace, queue: [session], queueLength: 1, availableOperators: 0)))
        settle()
        #expect(vera.peer.take().ofType("availability").isEmpty)

        // Capacity freed: someone is available, the session left the queue.
        routing.heard(.queue(RoutingSnapshot(workspace: workspace, queue: [], availableOperators: 1)))
        settle()
        let freed = try #require(vera.peer.take().ofType("availability").first)
        #expect(freed["operators_available"] as? Bool == true && freed["queue_position"] == nil)

        // An operator's console is told nothing of it.
        let ken = harness.connect(.operator, "op-ken")
        routing.heard(.queue(RoutingSnapshot(workspace: workspace, queue: [session], availableOperators: 0)))
        settle()
        #expect(ken.peer.take().ofType("availability").isEmpty)
    }

    @Test func aJoinIsFollowedByAvailabilityAndALeaveStopsIt() throws {
        let (vera, session) = harness.visitorWithSession()
        settle()
        _ = vera.peer.take()
        vera.send(["type": "join", "session_id": session, "ref": "j1"])
        settle()
        #expect(vera.peer.take().types.suffix(2) == ["joined", "availability"])
        vera.send(["type": "leave", "session_id": session])
        routing.heard(.queue(RoutingSnapshot(workspace: workspace, queue: [session], availableOperators: 0)))
        settle()
        #expect(vera.peer.take().ofType("availability").isEmpty)
        #expect(routing.board.withLock { $0.queueWorkspaces.isEmpty })
    }

    @Test func outsideBusinessHoursAvailabilitySaysWhenTheyOpen() throws {
        hours.state = OpeningState(open: false, opensAt: "2026-11-26T08:00:00Z")
        let vera = harness.connect(.visitor, "v-1")
        vera.send(["type": "session.create"])
        settle()
        let created = vera.peer.take()
        #expect(created.types == ["session", "availability"], "a session it created is told at once")
        let frame = try #require(created.ofType("availability").last)
        #expect(frame["open"] as? Bool == false && frame["opens_at"] as? String == "2026-11-26T08:00:00Z")
        // Opening time comes: the next heartbeat re-checks every waiting visitor.
        hours.state = .open
        routing.beat()
        settle()
        let opened = try #require(vera.peer.take().ofType("availability").last)
        #expect(opened["open"] == nil)
    }

    // MARK: session.contact

    @Test func aVisitorLeavesAnAddressOnItsOwnSession() throws {
        let olga = harness.connect(.operator, "op-olga", loop: 1)
        olga.send(["type": "inbox.subscribe"])
        let (vera, session) = harness.visitorWithSession()
        settle()
        _ = olga.peer.take()
        _ = vera.peer.take()
        vera.send(["type": "session.contact", "ref": "c1", "session_id": session, "email": "vera@example.com"])
        settle()
        let answer = try #require(vera.peer.take().ofType("session.updated").first)
        #expect(answer["ref"] as? String == "c1")
        let contact = (answer["session"] as? [String: Any])?["contact"] as? [String: Any]
        #expect(contact?["email"] as? String == "vera@example.com")
        let told = try #require(olga.peer.take().ofType("session.updated").first)
        #expect(
            ((told["session"] as? [String: Any])?["contact"] as? [String: Any])?["email"] as? String
                == "vera@example.com")
    }

    @Test func contactIsRefusedToOthersAndForImplausibleAddresses() {
        let (vera, session) = harness.visitorWithSession()
        settle()
        _ = vera.peer.take()
        for bad in [
            "", "vera", "vera@", "@example.com", "vera@localhost", "ve ra@example.com", "a@b@example.com",
            String(repeating: "a", count: 250) + "@example.com",
        ] {
            vera.send(["type": "session.contact", "session_id": session, "email": bad])
            #expect(vera.peer.take().first?["code"] as? String == "bad_request", "\(bad)")
        }
        let ken = harness.connect(.operator, "op-ken")
        ken.send(["type": "session.contact", "session_id": session, "email": "ken@example.com"])
        #expect(ken.peer.take().first?["code"] as? String == "forbidden")
        let other = harness.connect(.visitor, "v-2")
        other.send(["type": "session.contact", "session_id": session, "email": "v2@example.com"])
        #expect(other.peer.take().first?["code"] as? String == "forbidden", "join it first (and it is not its own)")
        #expect(harness.database.sessions[session]?.contact == nil)
    }
}

extension RoutingSnapshot {
    init(workspace: String, queue: [String], availableOperators: Int) {
        self.init(
            workspaceID: workspace, queue: queue, queueLength: queue.count, availableOperators: availableOperators)
    }
}

/// Business hours a test moves.
final class ScriptedHours: BusinessHoursSchedule, @unchecked Sendable {
    var state = OpeningState.open
    func state(of workspaceID: String, atUnixSeconds now: Int64) -> OpeningState { state }
}

/// What the cores would tell the other nodes.
final class RecordingOutlet: ClusterOutlet, @unchecked Sendable {
    var news: [RoutingNews] = []
    func publish(_ event: ChatEvent) {}
    func publish(_ news: RoutingNews) { self.news.append(news) }
    func watch(session: String) {}
    func unwatch(session: String) {}
    func watch(workspace: String) {}
    func unwatch(workspace: String) {}
}
