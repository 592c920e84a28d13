import SwitchboardChat
import SwitchboardReaders
import SwitchboardRouting

/// Presence and availability (docs/routing.md, "Presence and availability
/// travel"): what this node's consoles (`presence.subscribe`) and visitors
/// (`availability`, `welcome.operators_available`) follow, kept in `board`.
/// A change is read once where it happens (a status or capacity set, a
/// pass, a session closed or handed off, an operator's first connection),
/// told to this node's clients and, as `RoutingNews`, to the other nodes;
/// each node's board lets through only what differs from what it told, so
/// a frame is encoded once per node and operator changed, however many
/// sources say it. Every heartbeat each node re-reads what it follows: the
/// grace running out, and anything a lost notification carried.
extension RoutingService {
    // MARK: What this node's cores follow (loop threads; short locks only)

    /// A console follows `workspace`'s presence: the whole list is read on a
    /// database thread and handed to `finish` there (for `presence.list`).
    package func watchPresence(
        _ workspace: String, then finish: @escaping @Sendable (Result<[OperatorPresence], QueryError>) -> Void
    ) -> Bool {
        _ = board.withLock { $0.watchPresence(workspace) }
        let accepted = store.run { [self] queries in
            let result = Result { () throws(QueryError) in
                try queries.operatorPresence(
                    workspaceID: workspace, operatorID: nil, defaultCapacity: settings.maxSessionsPerOperator,
                    liveSeconds: liveSeconds)
            }
            if case .success(let operators) = result { tell(operators, of: workspace, complete: true) }
            finish(result)
        }
        if !accepted { unwatchPresence(workspace) }
        return accepted
    }

    package func unwatchPresence(_ workspace: String) {
        board.withLock { $0.unwatchPresence(workspace) }
    }

    /// A visitor here has a session in `workspace`: its place in the queue
    /// is followed. `waiting`: the session is queued (a visitor back after a
    /// reload), so a queue this node has not read yet is read now; a new
    /// session is not queued before its first message, whose pass tells.
    package func watchQueue(_ workspace: String, waiting: Bool) {
        let unread = board.withLock { board in
            _ = board.watchQueue(workspace)
            return !board.knowsQueue(workspace)
        }
        if waiting && unread { refresh(workspace, announce: false) }
    }

    package func unwatchQueue(_ workspace: String) {
        board.withLock { $0.unwatchQueue(workspace) }
    }

    package func operatorsAvailable(_ workspace: String) -> Bool {
        board.withLock { $0.operatorsAvailable(workspace) }
    }

    /// What the visitors of `workspace` should be told now.
    package func availability(in workspace: String, atUnixSeconds now: Int64) -> WorkspaceAvailability {
        let hours = businessHours.state(of: workspace, atUnixSeconds: now)
        return board.withLock { $0.availability(of: workspace, hours: hours) }
    }

    // MARK: News

    /// Operators read on a database thread: to this node's consoles (what
    /// changed) and visitors (whether anyone is available).
    func tell(_ operators: [OperatorPresence], of workspace: String, complete: Bool) {
        let (changed, availability) = board.withLock { board -> ([OperatorPresence], Bool) in
            let before = board.operatorsAvailable(workspace)
            let changed = board.tell(operators, of: workspace, complete: complete)
            return (changed, board.watchesQueue(workspace) && before != board.operatorsAvailable(workspace))
        }
        notifyCores(workspace, changed, availability: availability)
    }

    /// A pass's outcome (this node's, or another's over the bus).
    func tell(_ snapshot: RoutingSnapshot) {
        let changed = board.withLock { board -> Bool in
            let available = board.setAvailable(snapshot.workspaceID, snapshot.availableOperators > 0)
            let queue = board.tellQueue(snapshot.queue, of: snapshot.workspaceID)
            return board.watchesQueue(snapshot.workspaceID) && (available || queue)
        }
        notifyCores(snapshot.workspaceID, [], availability: changed)
    }

    /// Each changed operator encoded once, for every core's consoles; every
    /// core's visitors of the workspace re-checked when availability moved.
    private func notifyCores(_ workspace: String, _ changed: [OperatorPresence], availability: Bool) {
        guard !changed.isEmpty || availability else { return }
        var encoder = ServerFrameEncoder()
        let frames = changed.map { SharedFrame(payload: encoder.presenceUpdated($0)) }
        cores.everyCore(fromDatabaseThread: { core in
            core.routingChanged(workspace, presence: frames, availability: availability)
        })
    }

    /// From the bus: what another node read.
    package func heard(_ news: RoutingNews) {
        switch news {
        case .presence(let workspace, let operators, let complete): tell(operators, of: workspace, complete: complete)
        case .queue(let snapshot): tell(snapshot)
        case .stale(let workspace):
            let follows = board.withLock { $0.watchesPresence(workspace) || $0.watchesQueue(workspace) }
            if follows { refresh(workspace, announce: false) }
        }
    }

    /// This node's own news: to its clients, then to the other nodes.
    func publish(_ news: RoutingNews) {
        heard(news)
        cores.cluster?.publish(news)
    }

    // MARK: Re-reads

    /// Reads `workspace`'s operators (and its queue, when a visitor here
    /// waits in it) and tells what changed; `announce`: also to the other
    /// nodes (a change made here they cannot see otherwise). Coalesced like
    /// passes: one running per workspace, and one more for what came meanwhile.
    func refresh(_ workspace: String, announce: Bool) {
        guard !stopping.load(ordering: .relaxed) else { return }
        let start = state.withLock { state -> Bool in
            if announce { state.announcing.insert(workspace) }
            return state.refreshes.request(workspace)
        }
        if start { runRefresh(workspace) }
    }

    private func runRefresh(_ workspace: String) {
        let accepted = store.run { [self] queries in
            let announce = state.withLock { $0.announcing.remove(workspace) != nil }
            reread(workspace, announce: announce, queries)
            if state.withLock({ $0.refreshes.finished(workspace) }) { runRefresh(workspace) }
        }
        if !accepted { state.withLock { $0.refreshes.abandoned(workspace) } }
    }

    /// On a database thread: `workspace`'s operators, and its queue when a
    /// visitor here waits in it, read and told.
    private func reread(_ workspace: String, announce: Bool, _ queries: any RoutingQueries) {
        do {
            let operators = try queries.operatorPresence(
                workspaceID: workspace, operatorID: nil, defaultCapacity: settings.maxSessionsPerOperator,
                liveSeconds: liveSeconds)
            if announce {
                publish(.presence(workspaceID: workspace, operators: operators, complete: true))
            } else {
                tell(operators, of: workspace, complete: true)
            }
            if board.withLock({ $0.watchesQueue(workspace) }) {
                let head = try queries.queuedSessionIDs(workspaceID: workspace, limit: ChatQueries.queueHeadLimit)
                let changed = board.withLock { $0.tellQueue(head, of: workspace) }
                notifyCores(workspace, [], availability: changed)
            }
        } catch {
            logger.debug("routing: could not read the presence of workspace \(workspace): \(error)")
        }
    }

    /// After a heartbeat, in its job (no job more: a console storm stays one
    /// or two jobs): which workspaces have someone available (every
    /// workspace: a visitor's `welcome` needs no read), and a re-read of each
    /// workspace this node follows or an operator first connected to.
    func refreshFollowed(_ queries: any RoutingQueries) {
        do {
            let available = try queries.workspacesWithAvailableOperators(
                workspaceID: nil, defaultCapacity: settings.maxSessionsPerOperator)
            let moved = board.withLock { board in
                board.replaceAvailable(available).filter { board.watchesQueue($0) }
            }
            for workspace in moved { notifyCores(workspace, [], availability: true) }
        } catch {
            logger.debug("routing: could not read which workspaces have someone available: \(error)")
        }
        let (followed, waiting) = board.withLock { board in
            (Set(board.presenceWorkspaces + board.queueWorkspaces), board.queueWorkspaces)
        }
        // Operators connected for the first time here since the last beat: the other nodes hear of it.
        let connected = state.withLock { state -> Set<String> in
            defer { state.connectedSince.removeAll() }
            return state.connectedSince
        }
        for workspace in connected.union(followed) {
            reread(workspace, announce: connected.contains(workspace), queries)
        }
        // Business hours open and close on their own: every waiting visitor's value re-checked.
        for workspace in waiting {
            cores.everyCore(fromDatabaseThread: { $0.routingChanged(workspace, presence: [], availability: true) })
        }
    }
}
