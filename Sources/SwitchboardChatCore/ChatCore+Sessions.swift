import SwitchboardAuth
import SwitchboardChat
import SwitchboardReaders

/// Joining and leaving: `session.create`, `join` with its replay, and the
/// bookkeeping of who is joined where.
extension ChatCore {
    // MARK: session.create

    func createSession(_ id: UInt64, title: String?, context: String?, ref: String?, as identity: Identity) {
        guard let client = clients[id] else { return }
        client.pendingCreates += 1
        let accepted = withDatabase(id, ref: ref) { queries throws(QueryError) in
            try queries.createSession(
                workspaceID: identity.workspaceID, visitorID: identity.id, title: title, context: context,
                contact: identity.contact)
        } then: { core, client, result in
            client.pendingCreates -= 1
            switch result {
            case .failure(let error): core.fail(id, error)
            case .success(let session):
                core.subscribe(id, client, session.id, state: .live(lastSeq: session.lastSeq), accessChecked: true)
                core.reply(id, core.encoder.session(ref: ref, core.directory.freshest(session)))
                core.announce(session, excluding: id)
                if let subscription = client.joined[session.id] {
                    core.followAvailability(subscription, identity, waiting: false)
                }
            }
        }
        if !accepted { client.pendingCreates -= 1 }
    }

    // MARK: join

    /// Subscribes at once (so no live message can slip past), holds live
    /// frames while the replay is read, then sends `joined`, the replay, and
    /// what was held.
    func join(_ id: UInt64, _ sessionID: String, since: Int64, ref: String?, as identity: Identity) {
        guard let client = clients[id] else { return }
        // A rejoin keeps what the earlier join established (same token, same session).
        let subscription = subscribe(
            id, client, sessionID, state: .replaying([]),
            accessChecked: client.joined[sessionID]?.accessChecked ?? false)
        let joinID = subscription.joinID
        let limit = settings.replayLimit
        withDatabase(id, ref: ref) { queries throws(QueryError) -> Result<JoinReplay, ChatError> in
            guard let session = try queries.session(id: sessionID) else {
                return .failure(ChatError(.notFound, "no session \(sessionID)", ref: ref))
            }
            if let denied = Access.checkView(identity, session, ref: ref) { return .failure(denied) }
            // The newest `limit` messages after since_seq; older ones are paged over HTTP.
            let since = min(since, session.lastSeq)
            let from = max(since, session.lastSeq - Int64(limit))
            let messages = try queries.messages(
                sessionID: sessionID, afterSeq: from, limit: limit, withNotes: identity.role != .visitor)
            return .success(JoinReplay(session: session, from: from, truncated: from > since, messages: messages))
        } then: { core, client, result in
            core.finishJoin(id, client, sessionID, joinID: joinID, result.flatMap { $0 }, ref: ref)
        }
    }

    private func finishJoin(
        _ id: UInt64, _ client: ChatClient, _ sessionID: String, joinID: UInt64,
        _ result: Result<JoinReplay, ChatError>,
        ref: String?
    ) {
        // Left or joined again meanwhile: this answer is for a join that no longer exists.
        guard let subscription = client.joined[sessionID], subscription.joinID == joinID else { return }
        switch result {
        case .failure(let error):
            client.joined[sessionID] = nil
            unlist(subscription)
            fail(id, error)
        case .success(let replay):
            subscription.accessChecked = true
            // Every seq up to the session's last_seq read first was in the replay's
            // reach: a visitor's ends there even when its last messages were notes.
            let newest = max(replay.messages.last?.seq ?? replay.from, replay.session.lastSeq)
            // `joined`, up to replay_limit messages and what was held: one send, not hundreds.
            client.peer.batchWrites {
                reply(
                    id,
                    encoder.joined(
                        ref: ref, sessionID: sessionID, lastSeq: max(replay.session.lastSeq, newest),
                        truncated: replay.truncated))
                for message in replay.messages { reply(id, encoder.message(message)) }
                let held = subscription.goLive(after: newest)
                for frame in held { client.peer.send(frame.frame) }
                metrics.fanoutDeliveries.increment(by: held.count)
            }
            if subscription.isRepairing { requestRepair(sessionID) }
            if let identity = client.identity {
                followAvailability(subscription, identity, waiting: replay.session.queued)
            }
        }
    }

    /// Joins `client` to `sessionID`, replacing an earlier join of the same session.
    @discardableResult
    func subscribe(
        _ id: UInt64, _ client: ChatClient, _ sessionID: String, state: Subscription.State, accessChecked: Bool
    ) -> Subscription {
        if let previous = client.joined[sessionID] { unlist(previous) }
        client.nextJoinID &+= 1
        let subscription = Subscription(
            connection: id, peer: client.peer, sessionID: sessionID, joinID: client.nextJoinID, state: state,
            accessChecked: accessChecked, seesNotes: client.identity.map { $0.role != .visitor } ?? false)
        client.joined[sessionID] = subscription
        if sessions[sessionID] == nil { cores.cluster?.watch(session: sessionID) }
        sessions[sessionID, default: []].append(subscription)
        return subscription
    }

    /// Takes a subscription out of its session's list (the client's own map is the caller's).
    func unlist(_ subscription: Subscription) {
        unfollowAvailability(subscription)
        guard var list = sessions[subscription.sessionID] else { return }
        list.removeAll { $0 === subscription }
        sessions[subscription.sessionID] = list.isEmpty ? nil : list
        if list.isEmpty { cores.cluster?.unwatch(session: subscription.sessionID) }
    }

    // MARK: inbox membership

    func watchInbox(_ id: UInt64, _ client: ChatClient, workspace: String) {
        guard client.inboxWorkspace == nil else { return }
        client.inboxWorkspace = workspace
        if inbox[workspace] == nil { cores.cluster?.watch(workspace: workspace) }
        inbox[workspace, default: []].append(InboxWatcher(connection: id, peer: client.peer))
    }

    func unwatchInbox(_ id: UInt64, workspace: String) {
        guard var list = inbox[workspace] else { return }
        list.removeAll { $0.connection == id }
        inbox[workspace] = list.isEmpty ? nil : list
        if list.isEmpty { cores.cluster?.unwatch(workspace: workspace) }
    }
}

/// What a join's reader job found.
package struct JoinReplay: Sendable {
    let session: SessionInfo
    /// Messages after this seq were replayed.
    let from: Int64
    let truncated: Bool
    let messages: [ChatMessage]
}
