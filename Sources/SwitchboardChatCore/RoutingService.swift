import Logging
import SwitchboardChat
import SwitchboardMetrics
import SwitchboardReaders
import SwitchboardRouting
import SwitchboardSystem
import SwitchboardWriter
import Synchronization

/// This node's part of routing (docs/routing.md): it hears what may change
/// who should get which session (a visitor's waiting message, an operator
/// connecting or choosing a status, a session closed or handed off, a
/// capacity raised, each heartbeat), runs the workspace's routing pass on
/// a database thread, coalesced so that one node never queues passes of one
/// workspace behind each other, and announces what the pass changed as a
/// `session.assign` is announced: each event to the session's subscribers,
/// each new state to them and the workspace's inboxes, on every loop and
/// every node.
///
/// Decisions are the database's: every pass holds its workspace's lock
/// there, so nodes never decide from their own memory. What this class
/// keeps is only this node's own: the operators connected to it, and which
/// passes it has running.
///
/// Threading: every method may be called from any thread and never blocks
/// (a short lock around plain values; jobs go to `store`, which refuses
/// rather than waits).
package final class RoutingService: RoutingTriggers, Sendable {
    package let settings: RoutingSettings
    /// This node's `cluster.node_id`: its rows in `gateway_nodes` and `operator_connections`.
    package let node: String
    let store: any RoutingStore
    let cores: ChatCores
    let metrics: GatewayMetrics
    let logger: Logger
    let observer: (any RoutingObserver)?
    let state = Mutex(State())
    let stopping = Atomic<Bool>(false)
    /// A heartbeat job is queued or running (one at a time).
    let beating = Atomic<Bool>(false)
    /// A beat was asked for while one was queued or running: one more follows it.
    let beatAgain = Atomic<Bool>(false)
    let heart = Mutex<NamedThread?>(nil)
    /// What this node's consoles and visitors follow, as last told (`RoutingService+Board`).
    let board = Mutex(RoutingBoard())
    /// Whether a workspace is within its business hours (`AlwaysOpen` unless one is given).
    let businessHours: any BusinessHoursSchedule

    struct State {
        var coalescer = PassCoalescer()
        /// Operators connected to this node: open connections per operator.
        var connections: [StaffKey: Held] = [:]
        /// Each workspace's queue length after this node's latest pass of it.
        var queueLengths: [String: Int] = [:]
        /// Presence re-reads: one per workspace at a time, one more for what came meanwhile.
        var refreshes = PassCoalescer()
        /// Workspaces whose next re-read goes to the other nodes too.
        var announcing: Set<String> = []
        /// Each workspace's queue as this node's latest pass of it published it.
        var publishedSnapshots: [String: RoutingSnapshot] = [:]
        /// Workspaces of operators whose first connection here came since the last beat.
        var connectedSince: Set<String> = []
    }

    struct StaffKey: Hashable {
        let workspaceID: String
        let operatorID: String
    }

    struct Held {
        var count: Int
        var staff: Participant
    }

    package init(
        settings: RoutingSettings, node: String, store: any RoutingStore, cores: ChatCores, metrics: GatewayMetrics,
        logger: Logger, observer: (any RoutingObserver)? = nil,
        businessHours: any BusinessHoursSchedule = AlwaysOpen()
    ) {
        self.businessHours = businessHours
        self.settings = settings
        self.node = node
        self.store = store
        self.cores = cores
        self.metrics = metrics
        self.logger = logger
        self.observer = observer
    }

    // MARK: Triggers

    /// A batch the writer committed: a session it made queued (a visitor's
    /// first waiting message on an open, unassigned session, or a reopen)
    /// asks for its workspace's pass. A session that was queued before the
    /// batch already had its pass, and another message from its visitor
    /// changes neither the queue's order nor anyone's room: a pass for each
    /// such batch would cost the chat path a transaction per batch for
    /// nothing while nobody is available (`scripts/bench-routing`: the
    /// database's CPU per message doubled). What does make room triggers
    /// passes of its own, and each heartbeat routes a queue left behind.
    package func committed(_ batch: WriterBatchResult) {
        var workspaces = Set<String>()
        // When this batch stored each session's messages: the writer's function
        // sets `waiting_since` to its transaction's time, which its rows carry too.
        var storedAt: [String: Set<String>] = [:]
        for result in batch.results {
            guard case .stored(let row) = result.outcome else { continue }
            storedAt[row.sessionID, default: []].insert(row.createdAt)
        }
        for result in batch.results {
            guard case .stored(let row) = result.outcome, let session = row.session, session.status == "open",
                session.operatorID == nil, let waitingSince = session.waitingSince,
                storedAt[row.sessionID]?.contains(waitingSince) == true
            else { continue }
            workspaces.insert(session.workspaceID)
        }
        for workspace in workspaces { trigger(workspace: workspace) }
    }

    package func changed(_ session: SessionInfo) {
        trigger(workspace: session.workspaceID)
        // Someone's open sessions changed (closed, handed off, released): every node's consoles hear of it.
        refresh(session.workspaceID, announce: true)
    }

    /// Runs `workspace`'s pass now, or once more after the one running here.
    package func trigger(workspace: String) {
        // Manual mode decides nothing and requeues nothing: no pass to run.
        guard settings.mode != .manual, !stopping.load(ordering: .relaxed) else { return }
        if state.withLock({ $0.coalescer.request(workspace) }) { runPass(workspace) }
    }

    // MARK: Passes

    private func runPass(_ workspace: String) {
        let accepted = store.run { [self] queries in
            let started = MonotonicClock.nanoseconds()
            do {
                let result = try queries.routingPass(workspaceID: workspace, settings: settings)
                metrics.routingPassLatency.observe(Double(MonotonicClock.nanoseconds() - started) / 1e9)
                deliver(result)
                try publishLoads(result, queries)
            } catch {
                logger.warning("routing pass of workspace \(workspace) failed: \(error)")
            }
            if state.withLock({ $0.coalescer.finished(workspace) }) { runPass(workspace) }
        }
        if !accepted {
            state.withLock { $0.coalescer.abandoned(workspace) }
            logger.warning("routing: the readers are busy; workspace \(workspace) waits for the next heartbeat")
        }
    }

    /// A committed pass: its changes to every loop and node (requeues first,
    /// so that a session requeued and given again in one pass ends assigned),
    /// then the metrics and the observer.
    private func deliver(_ result: RoutingPassResult) {
        cores.announce(fromDatabaseThread: result.requeued + result.assigned)
        if !result.assigned.isEmpty {
            metrics.routingAssignments(mode: settings.mode.rawValue).increment(by: result.assigned.count)
        }
        if !result.requeued.isEmpty { metrics.routingRequeued.increment(by: result.requeued.count) }
        for wait in result.firstWaits { metrics.routingWait.observe(wait) }
        state.withLock { state in
            state.queueLengths[result.workspaceID] =
                result.snapshot.queueLength == 0 ? nil : result.snapshot.queueLength
        }
        observer?.routed(result.snapshot)
        // A heartbeat's pass that found the queue as this node last told it is no news for the
        // other nodes (their own heartbeats re-read it anyway): the bus stays quiet while nothing moves.
        let news = state.withLock { state in
            defer { state.publishedSnapshots[result.workspaceID] = result.snapshot }
            return !result.assigned.isEmpty || !result.requeued.isEmpty
                || state.publishedSnapshots[result.workspaceID] != result.snapshot
        }
        if news { publish(.queue(result.snapshot)) } else { tell(result.snapshot) }
    }

    /// The operators a pass gave sessions to or took them from, read once
    /// (one statement however many sessions moved): one `presence.updated`
    /// per operator changed, on every node.
    private func publishLoads(_ result: RoutingPassResult, _ queries: any RoutingQueries) throws(QueryError) {
        var touched = Set<String>()
        for change in result.assigned { if let id = change.session.assignedOperator?.id { touched.insert(id) } }
        for change in result.requeued { if let id = change.event?.sender.id { touched.insert(id) } }
        guard !touched.isEmpty else { return }
        let operators = try queries.operatorPresence(
            workspaceID: result.workspaceID, operatorID: nil, defaultCapacity: settings.maxSessionsPerOperator,
            liveSeconds: liveSeconds)
        publish(
            .presence(
                workspaceID: result.workspaceID, operators: operators.filter { touched.contains($0.id) },
                complete: false))
    }

    /// Sessions waiting, as this node's latest passes found them (`switchboard_routing_queue_length`).
    package var queueLength: Int {
        state.withLock { $0.queueLengths.values.reduce(0, +) }
    }
}
