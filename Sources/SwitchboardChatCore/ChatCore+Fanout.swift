import SwitchboardChat

/// Fan-out: committed messages and events to this loop's subscribers. A
/// frame is encoded once per loop and written to every local subscriber.
extension ChatCore {
    /// Committed messages, from any source, in commit order per session, with
    /// the state each changed session was left in: each message to the
    /// session's subscribers here, and `session.updated` to the inbox
    /// subscribers of its workspace.
    package func deliverCommitted(_ messages: [ChatMessage], sessions: [SessionInfo]) {
        var frames: [SessionFrame] = []
        for message in messages where self.sessions[message.sessionID] != nil {
            frames.append(SessionFrame(message, frame: SharedFrame(payload: encoder.message(message))))
        }
        var delivered = deliver(frames)
        // Only workspaces with an inbox subscriber here need the state. A state
        // is told once: the writer's is always newer than what was known, and
        // one heard twice from the bus (by session and by workspace) is not.
        for session in sessions
        where inbox[session.workspaceID] != nil && isNews(session) && directory.tell(session) {
            let frame = SharedFrame(payload: encoder.sessionUpdated(ref: nil, session))
            delivered += tellInbox(session.workspaceID, frame, excluding: nil)
        }
        // Counted once per batch, not per subscriber: the counter is shared by every loop.
        if delivered > 0 { metrics.fanoutDeliveries.increment(by: delivered) }
    }

    /// Whether `session` is newer than the state this loop knows of it.
    func isNews(_ session: SessionInfo) -> Bool {
        guard let known = directory[session.id] else { return true }
        return session.version > known.version
    }

    /// An event from a core (this one or another).
    package func apply(_ event: ChatEvent) {
        var delivered = 0
        switch event {
        case .session(let frame):
            delivered = deliver(CollectionOfOne(frame))
        case .sessionChanged(let session, let frame, let excluded):
            // Older than what this loop knows, or this very state told already
            // (a re-read inbox page can race the event): its clients have it.
            guard directory.tell(session) else { return }
            delivered = deliver(
                CollectionOfOne(
                    SessionFrame(sessionID: session.id, seq: nil, excludedConnection: excluded, frame: frame)))
            delivered += tellInbox(session.workspaceID, frame, excluding: excluded)
        case .stored(let message):
            deliverCommitted([message], sessions: [])
        }
        if delivered > 0 { metrics.fanoutDeliveries.increment(by: delivered) }
    }

    /// Writes each frame to its session's subscribers; returns how many writes were made.
    private func deliver(_ frames: some Collection<SessionFrame>) -> Int {
        var delivered = 0
        if frames.count == 1, let frame = frames.first {
            for subscription in sessions[frame.sessionID] ?? []
            where subscription.connection != frame.excludedConnection {
                delivered += offer(frame, to: subscription)
            }
            return delivered
        }
        // Several frames of one session reach each of its subscribers in one send, in the frames' order.
        var bySession: [String: [SessionFrame]] = [:]
        for frame in frames where sessions[frame.sessionID] != nil {
            bySession[frame.sessionID, default: []].append(frame)
        }
        for (sessionID, frames) in bySession {
            guard let subscriptions = sessions[sessionID] else { continue }
            // Borrowed through buffers: copying a frame or a subscription per
            // delivery costs reference counts that a fan-out pays a million times a second.
            frames.withUnsafeBufferPointer { frames in
                subscriptions.withUnsafeBufferPointer { subscriptions in
                    for subscription in subscriptions {
                        let deliver = {
                            for index in frames.indices
                            where frames[index].excludedConnection != subscription.connection {
                                delivered += self.offer(frames[index], to: subscription)
                            }
                        }
                        if frames.count > 1 { subscription.peer.batchWrites(deliver) } else { deliver() }
                    }
                }
            }
        }
        return delivered
    }

    /// One live frame to one subscription; returns how many frames were
    /// written (a frame that fills a gap releases those held behind it).
    func offer(_ frame: SessionFrame, to subscription: Subscription) -> Int {
        switch subscription.offer(frame, holdLimit: settings.maxReplayBuffer) {
        case .write:
            subscription.peer.send(frame.frame)
            guard subscription.isRepairing else { return 1 }
            let released = subscription.released()
            for frame in released { subscription.peer.send(frame.frame) }
            return 1 + released.count
        case .withhold:
            // A note a visitor may not see: its seq counts as had, which may end a repair.
            guard subscription.isRepairing else { return 0 }
            let released = subscription.released()
            for frame in released { subscription.peer.send(frame.frame) }
            return released.count
        case .gap:
            requestRepair(subscription.sessionID)
            return 0
        case .hold:
            // A repair that failed is asked for again by the next message.
            if subscription.isRepairing { requestRepair(subscription.sessionID) }
            return 0
        case .skip:
            return 0
        case .overflow:
            subscription.peer.close(code: 1008, reason: "could not keep up while joining")
            return 0
        }
    }

    func tellInbox(_ workspaceID: String, _ frame: SharedFrame, excluding excluded: UInt64?) -> Int {
        guard let watchers = inbox[workspaceID] else { return 0 }
        var delivered = 0
        for watcher in watchers where watcher.connection != excluded {
            watcher.peer.send(frame)
            delivered += 1
        }
        return delivered
    }
}
