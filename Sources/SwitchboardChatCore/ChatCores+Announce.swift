import SwitchboardChat
import SwitchboardReaders

extension ChatCores {
    /// Session changes made off the socket protocol (a routing pass, the
    /// HTTP API), from a database thread, told as a `session.assign` is:
    /// each event to the session's subscribers, then its new state to them
    /// and to the workspace's inboxes, on every loop (one task per loop for
    /// all of them) and every other node.
    package func announce(fromDatabaseThread changes: [SessionChange]) {
        guard !changes.isEmpty else { return }
        var encoder = ServerFrameEncoder()
        var events: [ChatEvent] = []
        for change in changes {
            if let event = change.event { events.append(.stored(event)) }
            let frame = SharedFrame(payload: encoder.sessionUpdated(ref: nil, change.session))
            events.append(.sessionChanged(change.session, frame: frame, excludedConnection: nil))
        }
        let told = events
        everyCore(fromDatabaseThread: { core in
            for event in told { core.apply(event) }
        })
        if let cluster {
            for event in told { cluster.publish(event) }
        }
    }
}
