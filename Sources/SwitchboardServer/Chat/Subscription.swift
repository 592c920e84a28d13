/// One connection joined to one session. While the join's replay is being
/// read, live frames wait here; afterwards they go straight out, and `seq`
/// keeps each message exactly once and in order. It decides; the core writes.
final class Subscription {
    enum State {
        /// Waiting for the replay; live frames are held in arrival order.
        case replaying([SessionFrame])
        /// Caught up: `lastSeq` is the newest message this connection has.
        case live(lastSeq: Int64)
    }

    /// What to do with a live frame.
    enum Offer: Equatable {
        /// Write it now.
        case write
        /// Held until the replay is out.
        case hold
        /// A message this connection already has.
        case skip
        /// Too much held: the connection cannot keep up (close 1008).
        case overflow
    }

    let connection: UInt64
    let peer: ChatPeer
    let sessionID: String
    /// Tells a join's late answer from the answer to a later join of the same session.
    let joinID: UInt64
    private(set) var state: State
    /// Whether the session's access rule has passed for this connection: at
    /// once for a session it created, else when its join's answer arrives.
    /// Until then the connection is subscribed (so no live frame slips past)
    /// but may not act in the session.
    var accessChecked: Bool

    init(connection: UInt64, peer: ChatPeer, sessionID: String, joinID: UInt64, state: State, accessChecked: Bool) {
        self.connection = connection
        self.peer = peer
        self.sessionID = sessionID
        self.joinID = joinID
        self.state = state
        self.accessChecked = accessChecked
    }

    /// Decides what becomes of a live frame; holds at most `holdLimit` frames.
    func offer(_ frame: SessionFrame, holdLimit: Int) -> Offer {
        switch state {
        case .replaying(var held):
            guard held.count < holdLimit else { return .overflow }
            state = .live(lastSeq: 0)  // drop the array's reference so the append does not copy
            held.append(frame)
            state = .replaying(held)
            return .hold
        case .live(let lastSeq):
            if let seq = frame.seq {
                guard seq > lastSeq else { return .skip }
                state = .live(lastSeq: seq)
            }
            return .write
        }
    }

    /// The replay has been sent up to `lastSeq`: goes live and returns what
    /// was held and is still news, in order (messages the replay had are skipped).
    func goLive(after lastSeq: Int64) -> [SessionFrame] {
        guard case .replaying(let held) = state else { return [] }
        state = .live(lastSeq: lastSeq)
        var release: [SessionFrame] = []
        for frame in held where offer(frame, holdLimit: 0) == .write { release.append(frame) }
        return release
    }
}
