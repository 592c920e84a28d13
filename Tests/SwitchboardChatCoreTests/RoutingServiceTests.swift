import Foundation
import Logging
import SwitchboardAuth
import SwitchboardChat
import SwitchboardReaders
import SwitchboardRouting
import Testing

@testable import SwitchboardChatCore

/// Routing's part on one node, over the fakes: which events ask for a
/// pass, how passes coalesce, and how a pass's assignments reach every
/// loop exactly as a `session.assign` does.
@Suite struct RoutingServiceTests {
    let harness: CoreHarness
    let store = ManualRoutingStore()
    let routing: RoutingService

    init() {
        self.init(mode: .leastBusy)
    }

    init(mode: RoutingMode) {
        harness = CoreHarness(loops: 2)
        var logger = Logger(label: "routing-test")
        logger.logLevel = .critical
        routing = RoutingService(
            settings: RoutingSettings(mode: mode), node: "node-a", store: store, cores: harness.cores,
            metrics: harness.metrics, logger: logger)
        harness.cores.routing = routing
    }

    private var workspace: String { CoreHarness.workspace }

    /// Commits what was sent, as the writer's sink does: to every core, then to routing.
    private func commit() {
        let batch = harness.database.commitPending()
        harness.cores.everyCore(fromDatabaseThread: { $0.committed(batch) })
        routing.committed(batch)
        harness.settle()
    }

    /// `session` given to Ken, as a pass's statement would return it.
    private func assignment(of session: String) throws -> SessionChange {
        var state = try #require(harness.database.sessions[session])
        state.status = .assigned
        state.assignedOperator = AssignedOperator(id: "op-ken", name: "Ken")
        state.version += 1
        state.lastSeq += 1
        let event = ChatMessage(
            id: UUID().uuidString.lowercased(), sessionID: session, seq: state.lastSeq,
            clientMessageID: "event:\(state.lastSeq)", kind: ChatMessage.eventKind, body: "Ken joined the conversation",
            sender: Participant(id: "op-ken", role: "operator", name: "Ken"), createdAt: "2026-11-23T09:00:00.000Z",
            meta: #"{"action":"assigned","reason":"routing"}"#)
        return SessionChange(session: state, event: event, changed: true)
    }

    @Test func aVisitorsWaitingMessageAsksForOnePassOfItsWorkspace() throws {
        let (vera, session) = harness.visitorWithSession()
        vera.send(["type": "send", "session_id": session, "client_msg_id": "m1", "body": "Hello?"])
        vera.send(["type": "send", "session_id": session, "client_msg_id": "m2", "body": "Anyone?"])
        commit()
        #expect(store.waiting == 1, "one batch, one workspace: one pass")
        store.runAll()
        #expect(store.queries.passes == [workspace])

        // Still waiting, its visitor writes again: the queue is as it was, and nobody has more room.
        vera.send(["type": "send", "session_id": session, "client_msg_id": "m3", "body": "Hello??"])
        commit()
        #expect(store.waiting == 0 && store.queries.passes == [workspace])

        // An operator's message on an assigned session leaves nobody waiting: no pass.
        let ken = harness.connect(.operator, "op-ken", name: "Ken", loop: 1)
        ken.send(["type": "join", "session_id": session])
        ken.send(["type": "session.assign", "session_id": session])
        harness.settle()
        store.runAll()
        let before = store.queries.passes.count
        ken.send(["type": "send", "session_id": session, "client_msg_id": "k1", "body": "Here"])
        commit()
        #expect(store.waiting == 0 && store.queries.passes.count == before)
    }

    @Test func aReopenedSessionWaitsAgainAndAsksForAPass() {
        let (vera, session) = harness.visitorWithSession()
        vera.send(["type": "send", "session_id": session, "client_msg_id": "m1", "body": "Hello?"])
        commit()
        store.runAll()
        vera.send(["type": "session.close", "session_id": session])
        harness.settle()
        store.runAll()
        let before = store.queries.passes.count
        vera.send(["type": "send", "session_id": session, "client_msg_id": "m2", "body": "Still broken"])
        commit()
        #expect(store.waiting == 1, "the reopening message starts a new wait")
        store.runAll()
        #expect(store.queries.passes.count == before + 1)
    }

    @Test func triggersDuringAPassMakeOneMorePass() {
        routing.trigger(workspace: workspace)
        for _ in 0..<5 { routing.trigger(workspace: workspace) }
        routing.trigger(workspace: CoreHarness.otherWorkspace)
        #expect(store.waiting == 2, "one per workspace; the rest wait for the running one")
        store.runAll()
        #expect(store.queries.passes == [workspace, CoreHarness.otherWorkspace, workspace])
        routing.trigger(workspace: workspace)
        store.runAll()
        #expect(store.queries.passes.count == 4, "idle again afterwards")
    }

    @Test func manualModeRunsNoPass() {
        let manual = RoutingServiceTests(mode: .manual)
        let (vera, session) = manual.harness.visitorWithSession()
        vera.send(["type": "send", "session_id": session, "client_msg_id": "m1", "body": "Hello?"])
        manual.commit()
        manual.routing.trigger(workspace: CoreHarness.workspace)
        #expect(manual.store.waiting == 0 && manual.store.queries.passes.isEmpty)
    }

    @Test func aPassesAssignmentReachesTheSessionAndEveryInboxLikeAnAssign() throws {
        let (vera, session) = harness.visitorWithSession()
        let olga = harness.connect(.operator, "op-olga", name: "Olga", loop: 1)
        olga.send(["type": "inbox.subscribe"])
        vera.send(["type": "send", "session_id": session, "client_msg_id": "m1", "body": "Hello?"])
        commit()
        store.runAll()
        _ = vera.peer.take()
        _ = olga.peer.take()

        var result = RoutingPassResult(
            workspaceID: workspace,
            snapshot: RoutingSnapshot(workspaceID: workspace, queue: [], queueLength: 0, availableOperators: 1))
        result.assigned = [try assignment(of: session)]
        result.firstWaits = [12]
        store.queries.scripted[workspace] = [result]
        routing.trigger(workspace: workspace)
        store.runAll()
        harness.settle()

        // Its visitor may also hear `availability` (its session waited); that is RoutingFramesTests' to check.
        let heard = vera.peer.take().filter { $0["type"] as? String != "availability" }
        #expect(heard.types == ["message", "session.updated"], "the event first, then the state")
        #expect(heard.first?["kind"] as? String == "event" && heard.first?["seq"] as? Int == 2)
        let state = heard.last?["session"] as? [String: Any]
        #expect(state?["status"] as? String == "assigned" && state?["queued"] as? Bool == false)
        let inbox = olga.peer.take().ofType("session.updated")
        #expect(inbox.count == 1, "the inbox on the other loop hears it once")
        let exposition = harness.metrics.renderString()
        #expect(exposition.contains(#"switchboard_routing_assignments_total{mode="least_busy"} 1"#))
        #expect(exposition.contains("switchboard_routing_wait_seconds_count 1"))
    }

    @Test func anOperatorsFirstAndLastConnectionHereAreWrittenAtOnce() throws {
        store.queries.workspacesWithWork = [workspace]
        let first = harness.connect(.operator, "op-ken", name: "Ken", loop: 0)
        let second = harness.connect(.operator, "op-ken", name: "Ken", loop: 1)
        _ = harness.connect(.visitor, "v-9")
        #expect(store.waiting == 1, "one beat for Ken's first connection; none for the second or a visitor")
        store.runAll()
        #expect(store.queries.counts == [["op-ken": 2]], "the count when the job runs")
        #expect(
            store.queries.heartbeats.first?.connections.first?.staff
                == Participant(id: "op-ken", role: "operator", name: "Ken"))
        #expect(store.queries.passes == [workspace], "then a pass where the database says there is work")

        first.close()
        #expect(store.waiting == 0)
        second.close()
        store.runAll()
        #expect(store.queries.counts.last == [:], "its last connection here is gone")
    }

    /// A console storm: a thousand operators signing in cost a job or two, not a thousand.
    @Test func aStormOfOperatorsIsOneOrTwoJobs() {
        for index in 0..<1000 { _ = harness.connect(.operator, "op-\(index)", loop: index % 2) }
        #expect(store.waiting == 1)
        #expect(store.runAll() == 2, "the first beat, and one more for those who came while it waited")
        #expect(store.queries.counts.last?.count == 1000)
    }

    @Test func theCoreTellsRoutingOfAnAssignmentAndAClose() {
        let (_, session) = harness.visitorWithSession()
        let ken = harness.connect(.operator, "op-ken", name: "Ken", loop: 1)
        store.runAll()
        let before = store.queries.passes.count
        ken.send(["type": "session.assign", "session_id": session])
        harness.settle()
        store.runAll()
        ken.send(["type": "session.close", "session_id": session])
        harness.settle()
        store.runAll()
        #expect(store.queries.passes.count == before + 2)
        #expect(harness.metrics.renderString().contains(#"switchboard_routing_assignments_total{mode="manual"} 1"#))
    }

    @Test func aHeartbeatWritesThisNodesConnectionsAndPassesWorkspacesWithWork() {
        _ = harness.connect(.operator, "op-ken", name: "Ken")
        _ = harness.connect(.admin, "ad-ann", name: "Ann", loop: 1)
        store.runAll()
        let (beats, passes) = (store.queries.heartbeats.count, store.queries.passes.count)
        store.queries.workspacesWithWork = [CoreHarness.otherWorkspace]
        routing.beat()
        #expect(store.waiting == 1)
        store.runAll()
        #expect(store.queries.heartbeats.count == beats + 1)
        #expect(
            store.queries.heartbeats.last?.connections == [
                NodeConnection(
                    workspaceID: workspace, staff: Participant(id: "ad-ann", role: "admin", name: "Ann"), connections: 1
                ),
                NodeConnection(
                    workspaceID: workspace, staff: Participant(id: "op-ken", role: "operator", name: "Ken"),
                    connections: 1),
            ])
        #expect(store.queries.heartbeats.last?.node == "node-a")
        #expect(Array(store.queries.passes.dropFirst(passes)) == [CoreHarness.otherWorkspace])
        routing.beat()
        routing.beat()
        #expect(store.waiting == 1, "one beat at a time; the second follows the first")
        #expect(store.runAll() == 4, "two beats, a pass after each")
    }

    /// An operator chooses its status over its socket: written (its row made
    /// if its hello is not yet), answered on its loop, and routed after.
    @Test func presenceSetAnswersTheOperatorsStateAndRoutes() {
        let ken = harness.connect(.operator, "op-ken", name: "Ken", loop: 1)
        store.runAll()
        let passes = store.queries.passes.count
        ken.send(["type": "presence.set", "ref": "p1", "status": "online"])
        store.runAll()
        harness.settle()
        let answer = ken.peer.take().first
        #expect(answer?["type"] as? String == "presence" && answer?["ref"] as? String == "p1")
        #expect((answer?["operator"] as? [String: Any])?["id"] as? String == "op-ken")
        #expect(store.queries.statuses == ["op-ken": .online])
        #expect(store.queries.passes.count == passes + 1)

        let vera = harness.connect(.visitor, "v-1")
        vera.send(["type": "presence.set", "ref": "p2", "status": "online"])
        #expect(vera.peer.take().first?["code"] as? String == "forbidden")
    }

    @Test func aPassNoThreadTakesIsForgottenUntilTheNextTrigger() {
        store.refuse = true
        routing.trigger(workspace: workspace)
        store.refuse = false
        #expect(store.waiting == 0)
        routing.trigger(workspace: workspace)
        store.runAll()
        #expect(store.queries.passes == [workspace])
    }

    @Test func aFailedPassEndsAndTheNextTriggerRunsAgain() {
        store.queries.failPasses = true
        routing.trigger(workspace: workspace)
        store.runAll()
        store.queries.failPasses = false
        routing.trigger(workspace: workspace)
        store.runAll()
        #expect(store.queries.passes == [workspace, workspace])
    }

    @Test func aStatusOrCapacityChangeAnswersThePresenceAndRoutes() throws {
        let answers = Answers()
        let statusTaken = routing.setStatus(.online, of: "op-ken", in: workspace) { answers.add($0) }
        let capacityTaken = routing.setCapacity(8, of: "op-nobody", in: workspace) { answers.add($0) }
        #expect(statusTaken && capacityTaken)
        store.runAll()
        #expect(answers.ids == ["op-ken", nil], "no such operator: nil")
        #expect(store.queries.statuses == ["op-ken": .online])
        #expect(store.queries.passes == [workspace], "only a change that happened routes")
        let positions = Answers()
        let positionsTaken = routing.queuePositions(workspace) { positions.queue = try? $0.get() }
        #expect(positionsTaken)
        store.runAll()
        #expect(positions.queue == ["s1", "s2"])
    }
}

/// Answers collected from routing's `then` closures (run on the test's thread by the manual store).
final class Answers: @unchecked Sendable {
    var ids: [String?] = []
    var queue: [String]?

    func add(_ result: Result<OperatorPresence?, QueryError>) {
        ids.append((try? result.get())?.id)
    }
}
