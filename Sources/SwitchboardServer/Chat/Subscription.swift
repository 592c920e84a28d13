import SwitchboardChat

/// One connection joined to one session. While the join's replay is being
/// read, live frames wait here; afterwards they go straight out, and `seq`
/// keeps each message exactly once and in order.
final class Subscription {
    enum State {
        /// Waiting for the replay; live frames are held in arrival order.
        case replaying([SessionFrame])
        /// Caught up: `lastSeq` is the newest message this connection has.
        case live(lastSeq: Int64)
    }

    unowned let connection: ChatConnection
    let sessionID: String
    /// Tells a join's late answer from the answer to a later join of the same session.
    let joinID: UInt64
    var state: State
    /// Whether the session's access rule has passed for this connection: at
    /// once for a session it created, else when its join's answer arrives.
    /// Until then the connection is subscribed (so no live frame slips past)
    /// but may not act in the session.
    var accessChecked: Bool

    init(connection: ChatConnection, sessionID: String, joinID: UInt64, state: State, accessChecked: Bool) {
        self.connection = connection
        self.sessionID = sessionID
        self.joinID = joinID
        self.state = state
        self.accessChecked = accessChecked
    }

    /// A live frame for this session. Returns whether it was written now
    /// (held frames are counted when they are released).
    @discardableResult
    func offer(_ frame: SessionFrame) -> Bool {
        switch state {
        case .replaying(var held):
            guard held.count < connection.settings.maxReplayBuffer else {
                connection.socket?.close(code: 1008, reason: "could not keep up while joining")
                return false
            }
            state = .live(lastSeq: 0)  // drop the array's reference so the append does not copy
            held.append(frame)
            state = .replaying(held)
            return false
        case .live(let lastSeq):
            if let seq = frame.seq {
                guard seq > lastSeq else { return false }
                state = .live(lastSeq: seq)
            }
            connection.socket?.send(frame.frame)
            return true
        }
    }

    /// The replay has been sent up to `lastSeq`: release what was held
    /// (skipping messages the replay already had) and go live.
    func goLive(after lastSeq: Int64) {
        guard case .replaying(let held) = state else { return }
        state = .live(lastSeq: lastSeq)
        var sent = 0
        for frame in held where offer(frame) { sent += 1 }
        connection.hub.service.metrics.fanoutDeliveries.increment(by: sent)
    }
}
