import SwitchboardAuth
import SwitchboardChat
import SwitchboardReaders
import SwitchboardRouting

/// Operators' presence over the socket (docs/routing.md): `presence.set`
/// (an operator chooses its status) and `presence.subscribe` (a console
/// follows its workspace's team: `presence.list`, then `presence.updated`).
/// Routing reads and writes on a database thread; answers come back to
/// this loop, and updates arrive encoded once for every core
/// (`routingChanged`).
extension ChatCore {
    func setPresence(_ id: UInt64, _ status: OperatorStatus, ref: String?, as identity: Identity) {
        guard let routing = cores.routing else { return failNoRouting(id, ref) }
        let handoff = LoopHandoff(index: loopIndex, loop: loop, logger: logger)
        let accepted = routing.setOwnStatus(status, of: identity.participant, in: identity.workspaceID) {
            [self] result in
            handoff.post { [self] in
                guard clients[id] != nil else { return }
                switch result {
                case .success(let presence?): reply(id, encoder.presence(ref: ref, presence))
                case .success(nil): fail(id, ChatError(.notFound, "no operator \(identity.id)", ref: ref))
                case .failure(let error): fail(id, ChatError(error, ref: ref))
                }
            }
        }
        if !accepted { failOverloaded(id, ref) }
    }

    /// Follows the workspace's operators; `presence.list` answers once they
    /// are read. Updates reach the connection only after its list (the list
    /// is read after it started following, so nothing falls between).
    func subscribePresence(_ id: UInt64, ref: String?, as identity: Identity) {
        guard let routing = cores.routing else { return failNoRouting(id, ref) }
        guard let client = clients[id] else { return }
        let workspace = identity.workspaceID
        let handoff = LoopHandoff(index: loopIndex, loop: loop, logger: logger)
        let answer: @Sendable (Result<[OperatorPresence], QueryError>) -> Void = { [self] result in
            handoff.post { [self] in
                guard clients[id] != nil else { return }
                switch result {
                case .success(let operators):
                    presenceWatchers[workspace]?[id]?.listed = true
                    reply(id, encoder.presenceList(ref: ref, operators))
                case .failure(let error): fail(id, ChatError(error, ref: ref))
                }
            }
        }
        // Subscribed already: the list again, from a fresh read.
        guard client.presenceWorkspace == nil else {
            if !routing.presence(of: workspace, operatorID: nil, then: answer) { failOverloaded(id, ref) }
            return
        }
        client.presenceWorkspace = workspace
        if presenceWatchers[workspace] == nil { cores.cluster?.watch(workspace: workspace) }
        presenceWatchers[workspace, default: [:]][id] = PresenceWatcher(peer: client.peer)
        if !routing.watchPresence(workspace, then: answer) {
            unwatchPresence(id, client)
            failOverloaded(id, ref)
        }
    }

    /// A closed (or refused) connection stops following.
    func unwatchPresence(_ id: UInt64, _ client: ChatClient) {
        guard let workspace = client.presenceWorkspace else { return }
        client.presenceWorkspace = nil
        presenceWatchers[workspace]?[id] = nil
        if presenceWatchers[workspace]?.isEmpty == true {
            presenceWatchers[workspace] = nil
            cores.cluster?.unwatch(workspace: workspace)
        }
        cores.routing?.unwatchPresence(workspace)
    }

    /// From routing, on this loop: operators of `workspace` that changed
    /// (each frame encoded once for every core) to its consoles here, and,
    /// when `availability` may have moved, each visitor's value re-checked.
    package func routingChanged(_ workspace: String, presence frames: [SharedFrame], availability: Bool) {
        var delivered = 0
        if !frames.isEmpty, let watchers = presenceWatchers[workspace] {
            for watcher in watchers.values where watcher.listed {
                watcher.peer.batchWrites { for frame in frames { watcher.peer.send(frame) } }
                delivered += frames.count
            }
        }
        if availability, let visitors = waitingVisitors[workspace], let routing = cores.routing {
            // The workspace's values taken once, for all of its visitors here.
            let view = routing.availability(in: workspace, atUnixSeconds: wallClock())
            for subscription in visitors { delivered += tellAvailability(subscription, view) }
        }
        if delivered > 0 { metrics.fanoutDeliveries.increment(by: delivered) }
    }

    func failNoRouting(_ id: UInt64, _ ref: String?) {
        fail(id, ChatError(.unavailable, "routing does not run on this gateway", ref: ref))
    }

    func failOverloaded(_ id: UInt64, _ ref: String?) {
        fail(id, ChatError(.overloaded, "too many requests in flight; retry later", ref: ref))
    }
}

/// A console following its workspace's presence.
struct PresenceWatcher {
    let peer: ChatPeer
    /// Its `presence.list` went out: updates may follow.
    var listed = false
}
