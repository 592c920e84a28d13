import SwitchboardChat
import SwitchboardReaders
import SwitchboardSystem

/// This node's operators and its heartbeat: the connections it holds, told
/// to the database on the first and the last of each operator's here and
/// every `routing.heartbeat_s`, so that an operator counts as connected
/// while any node holds one of its connections, and for the grace after.
/// Every such write is the node's whole view in one job (`beat`): a console
/// storm of thousands of operators costs one or two jobs, never one each,
/// so the readers' queue stays free for the joins that storm needs.
extension RoutingService {
    package func connected(_ staff: Participant, workspace: String) {
        let key = StaffKey(workspaceID: workspace, operatorID: staff.id)
        let first = state.withLock { state -> Bool in
            state.connections[key, default: Held(count: 0, staff: staff)].count += 1
            state.connections[key]?.staff = staff
            let first = state.connections[key]?.count == 1
            if first { state.connectedSince.insert(workspace) }
            return first
        }
        // Its first here: known to the database at once (and routed to, if it is online).
        if first { beat() }
    }

    package func disconnected(_ staff: Participant, workspace: String) {
        let key = StaffKey(workspaceID: workspace, operatorID: staff.id)
        let last = state.withLock { state -> Bool in
            guard var held = state.connections[key] else { return false }
            held.count -= 1
            state.connections[key] = held.count > 0 ? held : nil
            return held.count == 0
        }
        // Its last here: it stays available for the grace, from now; a beat after it requeues.
        if last { beat() }
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

    /// One heartbeat: this node and its connections written as they are when
    /// the job runs, its operators' grace renewed, and a pass for each
    /// workspace the database says has work (a queue and someone to take from
    /// it; an operator gone past its grace still holding sessions). One at a
    /// time; a beat asked for while one is queued or running runs right
    /// after it (an operator's first connection does not wait a heartbeat).
    package func beat() {
        guard !beating.exchange(true, ordering: .acquiringAndReleasing) else {
            beatAgain.store(true, ordering: .releasing)
            return
        }
        let accepted = store.run { [self] queries in
            let connections = state.withLock { state in
                state.connections.map { key, held in
                    NodeConnection(workspaceID: key.workspaceID, staff: held.staff, connections: held.count)
                }
            }
            do {
                let workspaces = try queries.heartbeat(node: node, connections: connections, settings: settings)
                for workspace in workspaces { trigger(workspace: workspace) }
                refreshFollowed(queries)
            } catch {
                logger.warning("routing heartbeat failed: \(error)")
            }
            beating.store(false, ordering: .releasing)
            // Asked for meanwhile (checked after the flag is down, so that no request slips between).
            if beatAgain.exchange(false, ordering: .acquiringAndReleasing) { beat() }
        }
        if !accepted {
            beating.store(false, ordering: .releasing)
            logger.debug("routing: readers busy; the next heartbeat writes this node's operators")
        }
    }
}
