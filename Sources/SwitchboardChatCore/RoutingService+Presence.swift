import SwitchboardChat
import SwitchboardReaders
import SwitchboardSystem

/// This node's operators and its heartbeat: the connections it holds, told
/// to the database on the first and the last of each operator's and every
/// `routing.heartbeat_s`, so that an operator counts as connected while any
/// node holds one of its connections, and for the grace after.
extension RoutingService {
    package func connected(_ staff: Participant, workspace: String) {
        let key = StaffKey(workspaceID: workspace, operatorID: staff.id)
        let first = state.withLock { state -> Bool in
            state.connections[key, default: Held(count: 0, staff: staff)].count += 1
            state.connections[key]?.staff = staff
            return state.connections[key]?.count == 1
        }
        // Its first here: known to the database at once, and maybe someone to route to.
        if first { record(key, staff, then: { [self] in trigger(workspace: workspace) }) }
    }

    package func disconnected(_ staff: Participant, workspace: String) {
        let key = StaffKey(workspaceID: workspace, operatorID: staff.id)
        let last = state.withLock { state -> Bool in
            guard var held = state.connections[key] else { return false }
            held.count -= 1
            state.connections[key] = held.count > 0 ? held : nil
            return held.count == 0
        }
        // Its last here: it stays available for the grace; the heartbeat after it requeues.
        if last { record(key, staff, then: {}) }
    }

    /// Writes what this node holds of one operator now (the count when the
    /// job runs, so that jobs overtaking each other still end in the latest
    /// state; the heartbeat rewrites it all anyway), then `next`.
    private func record(_ key: StaffKey, _ staff: Participant, then next: @escaping @Sendable () -> Void) {
        let accepted = store.run { [self] queries in
            let count = state.withLock { $0.connections[key]?.count ?? 0 }
            do {
                try queries.recordConnections(
                    node: node, workspaceID: key.workspaceID, staff: staff, connections: count,
                    graceSeconds: settings.offlineGraceSeconds)
                next()
            } catch {
                logger.warning("routing: could not record the connections of operator \(key.operatorID): \(error)")
            }
        }
        if !accepted { logger.debug("routing: readers busy; the next heartbeat records \(key.operatorID)") }
    }

    // MARK: Heartbeat

    /// Starts the heartbeat thread (one beat at once, then every `routing.heartbeat_s`).
    package func start() {
        metrics.registerPullGauge(
            name: "switchboard_routing_queue_length",
            help: "Sessions waiting in routing queues, as this node's latest pass of each workspace found them."
        ) { [self] in Double(queueLength) }
        heart.withLock { heart in
            guard heart == nil else { return }
            heart = NamedThread.spawn(name: "sb-routing") { [self] in beatForever() }
        }
    }

    /// Stops the heartbeat and every later trigger; waits for the thread.
    package func stop() {
        stopping.store(true, ordering: .relaxed)
        let thread = heart.withLock { heart -> NamedThread? in
            defer { heart = nil }
            return heart
        }
        thread?.join()
    }

    private func beatForever() {
        var slept = settings.heartbeatSeconds * 1000
        while !stopping.load(ordering: .relaxed) {
            if slept >= settings.heartbeatSeconds * 1000 {
                slept = 0
                beat()
            }
            ThisProcess.sleep(milliseconds: 100)
            slept += 100
        }
    }

    /// One heartbeat: this node and its connections written, its operators'
    /// grace renewed, and a pass for each workspace the database says has
    /// work (a queue and someone to take from it; an operator gone past its
    /// grace still holding sessions). One at a time: a beat that finds the
    /// previous one still queued is skipped.
    package func beat() {
        guard !beating.exchange(true, ordering: .acquiring) else { return }
        let accepted = store.run { [self] queries in
            defer { beating.store(false, ordering: .releasing) }
            let connections = state.withLock { state in
                state.connections.map { key, held in
                    NodeConnection(workspaceID: key.workspaceID, operatorID: key.operatorID, connections: held.count)
                }
            }
            do {
                let workspaces = try queries.heartbeat(node: node, connections: connections, settings: settings)
                for workspace in workspaces { trigger(workspace: workspace) }
            } catch {
                logger.warning("routing heartbeat failed: \(error)")
            }
        }
        if !accepted { beating.store(false, ordering: .releasing) }
    }
}
