import Logging
import SwitchboardChat
import SwitchboardChatCore
import SwitchboardCluster
import SwitchboardMetrics
import SwitchboardSystem
import Synchronization

/// This node's end of the cluster bus: what other nodes send goes to every
/// chat core (committed messages into the same fan-out as this node's own,
/// so that `seq` de-duplicates and orders them); what the cores tell each
/// other goes out to the other nodes. After every (re)connection and every
/// `pollMilliseconds` while the bus is down, the cores read from the
/// database what the bus may have missed; every `sweepMilliseconds` while it
/// is up they look for sessions left behind by a lost notification (a node
/// that died between its commit and its notification hides a message until
/// the session's next one) and read only those.
final class ClusterLink: ClusterOutlet, @unchecked Sendable {
    let bus: any ClusterBus
    let nodeID: String
    private let cores: ChatCores
    private let metrics: GatewayMetrics
    private let logger: Logger
    private let pollMilliseconds: Int
    private let sweepMilliseconds: Int
    private let stopping = Atomic<Bool>(false)
    private let polling = Atomic<Bool>(false)
    private var poller: NamedThread?
    /// Of `bus.droppedEvents`, what `switchboard_bus_dropped_total` has; the poller's own.
    private var droppedExported = 0
    /// Told of other nodes' presence and queue news. Set before `start`;
    /// weak, since routing holds the cores, which hold this link.
    weak var routing: RoutingService?

    init(
        bus: any ClusterBus, nodeID: String, cores: ChatCores, metrics: GatewayMetrics, logger: Logger,
        pollMilliseconds: Int = 500, sweepMilliseconds: Int = 2000
    ) {
        self.bus = bus
        self.nodeID = nodeID
        self.cores = cores
        self.metrics = metrics
        self.logger = logger
        self.pollMilliseconds = pollMilliseconds
        self.sweepMilliseconds = sweepMilliseconds
    }

    /// Starts the bus and the poller; the cores must be attached.
    func start() {
        metrics.identify(node: nodeID, bus: bus.name)
        let bus = self.bus
        metrics.registerPullGauge(
            name: "switchboard_bus_connected",
            help: "1 while the cluster bus is connected and caught up, 0 otherwise."
        ) { bus.state == .connected ? 1 : 0 }
        guard !(bus is NoBus) else { return }
        bus.start(
            BusHandlers(
                received: { [self] in receive($0) },
                connected: { [self] generation in
                    if generation > 1 { metrics.busReconnects.increment() }
                    logger.info("cluster bus \(bus.name) connected; catching up from the database")
                    catchUp { bus.caughtUp(generation: generation) }
                },
                disconnected: { [logger] in
                    logger.warning("cluster bus \(bus.name) lost; polling the database until it is back")
                }))
        poller = NamedThread.spawn(name: "switchboard-poll") { [self] in poll() }
    }

    func stop() {
        stopping.store(true, ordering: .relaxed)
        bus.stop()
        poller?.join()
    }

    // MARK: From the other nodes

    private func receive(_ notification: BusNotification) {
        metrics.busNotificationsIn.increment()
        let latency = UnixClock.nowMicroseconds() - notification.sentAtMicroseconds
        if notification.sentAtMicroseconds > 0 { metrics.busDeliveryLatency.observe(Double(max(0, latency)) / 1e6) }
        switch notification.event {
        case .committed(let messages, let sessions):
            cores.everyCore(fromDatabaseThread: { $0.deliverCommitted(messages, sessions: sessions) })
        case .ranges(let ranges):
            cores.everyCore(fromDatabaseThread: { $0.hint(ranges) })
        case .sessionFrame(let sessionID, let payload):
            let frame = SessionFrame(
                sessionID: sessionID, seq: nil, excludedConnection: nil, frame: SharedFrame(payload: payload))
            cores.everyCore(fromDatabaseThread: { $0.apply(.session(frame)) })
        case .sessionChanged(let session):
            var encoder = ServerFrameEncoder()
            let frame = SharedFrame(payload: encoder.sessionUpdated(ref: nil, session))
            cores.everyCore(fromDatabaseThread: {
                $0.apply(.sessionChanged(session, frame: frame, excludedConnection: nil))
            })
        case .sessionStale(let sessionID, let workspaceID):
            cores.everyCore(fromDatabaseThread: { $0.refresh(sessionID, workspaceID: workspaceID) })
        case .presence(let workspaceID, let operators, let complete):
            routing?.heard(.presence(workspaceID: workspaceID, operators: operators, complete: complete))
        case .queue(let snapshot):
            routing?.heard(.queue(snapshot))
        case .routingStale(let workspaceID):
            routing?.heard(.stale(workspaceID: workspaceID))
        }
    }

    /// Every core sweeps for lost notifications; `done` runs once all have answered.
    private func sweep(then done: @escaping @Sendable () -> Void) {
        let remaining = Atomic<Int>(cores.cores.count)
        cores.everyCore(fromDatabaseThread: { core in
            core.sweep {
                if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { done() }
            }
        })
    }

    /// Every core reads its sessions from the database; `done` runs once all have answered.
    private func catchUp(inboxes: Bool = true, then done: @escaping @Sendable () -> Void) {
        let remaining = Atomic<Int>(cores.cores.count)
        cores.everyCore(fromDatabaseThread: { core in
            core.catchUpAll(inboxes: inboxes) {
                if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { done() }
            }
        })
    }

    /// While the bus is down, nothing says what the other nodes commit:
    /// read it often. While it is up, sweep now and then.
    private func poll() {
        var slept = 0
        while !stopping.load(ordering: .relaxed) {
            ThisProcess.sleep(milliseconds: 100)
            bus.tick()
            exportDropped()
            slept += 100
            let state = bus.state
            let due = state == .disconnected ? pollMilliseconds : state == .connected ? sweepMilliseconds : Int.max
            guard slept >= due else { continue }
            slept = 0
            guard !polling.exchange(true, ordering: .acquiring) else { continue }
            let finished: @Sendable () -> Void = { [self] in polling.store(false, ordering: .releasing) }
            if state == .connected { sweep(then: finished) } else { catchUp(inboxes: false, then: finished) }
        }
    }

    /// The bus counts what it drops; the metric follows, from this thread.
    private func exportDropped() {
        let total = bus.droppedEvents
        if total > droppedExported {
            metrics.busDropped.increment(by: total - droppedExported)
            droppedExported = total
        }
    }

    // MARK: To the other nodes

    func publish(_ event: ChatEvent) {
        let published: Bool
        switch event {
        case .session(let frame):
            published = bus.publish(.sessionFrame(sessionID: frame.sessionID, payload: frame.frame.payload))
        case .sessionChanged(let session, _, _):
            published = bus.publish(.sessionChanged(session))
        case .stored(let message):
            published = bus.publish(.committed(messages: [message], sessions: []))
        }
        if published { metrics.busNotificationsOut.increment() }
    }

    func publish(_ news: RoutingNews) {
        let event: BusEvent
        switch news {
        case .presence(let workspaceID, let operators, let complete):
            event = .presence(workspaceID: workspaceID, operators: operators, complete: complete)
        case .queue(let snapshot): event = .queue(snapshot)
        case .stale(let workspaceID): event = .routingStale(workspaceID: workspaceID)
        }
        if bus.publish(event) { metrics.busNotificationsOut.increment() }
    }

    /// A batch this node committed, on the writer's thread after the commit.
    func publish(_ stored: CommittedMessages) {
        guard !stored.messages.isEmpty else { return }
        if bus.publish(.committed(messages: stored.messages, sessions: stored.sessions)) {
            metrics.busNotificationsOut.increment()
        }
    }

    func watch(session: String) { bus.watch(session: session) }
    func unwatch(session: String) { bus.unwatch(session: session) }
    func watch(workspace: String) { bus.watch(workspace: workspace) }
    func unwatch(workspace: String) { bus.unwatch(workspace: workspace) }
}
