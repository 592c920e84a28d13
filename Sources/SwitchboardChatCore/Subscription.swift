import SwitchboardRouting

/// One connection joined to one session. While the join's replay is being
/// read, live frames wait here; afterwards they go straight out, and `seq`
/// keeps each message exactly once and in order: a message whose
/// predecessor has not arrived (another node's, or a hint that arrived
/// before this node's own commit) waits here while the core reads the gap
/// from the database. It decides; the core writes.
package final class Subscription {
    enum State {
        /// Waiting for the replay; live frames are held in arrival order.
        case replaying([SessionFrame])
        /// Caught up: `lastSeq` is the newest message this connection has.
        case live(lastSeq: Int64)
        /// Messages after `lastSeq` are missing: later ones wait in `held`,
        /// in seq order, until the gap is filled.
        case repairing(lastSeq: Int64, held: [SessionFrame])
    }

    /// What to do with a live frame.
    enum Offer: Equatable {
        /// Write it now.
        case write
        /// Held until the replay is out, or the gap before it is filled.
        case hold
        /// Held, and it opened a gap: the core must read the missing messages.
        case gap
        /// A message this connection already has.
        case skip
        /// A note this connection may not see (a visitor's): its seq counts as
        /// had, nothing is written; while repairing, `released()` may follow.
        case withhold
        /// Too much held: the connection cannot keep up (close 1008).
        case overflow
    }

    let connection: UInt64
    let peer: ChatPeer
    package let sessionID: String
    /// Tells a join's late answer from the answer to a later join of the same session.
    let joinID: UInt64
    private(set) var state: State
    /// Whether the session's access rule has passed for this connection: at
    /// once for a session it created, else when its join's answer arrives.
    /// Until then the connection is subscribed (so no live frame slips past)
    /// but may not act in the session.
    var accessChecked: Bool
    /// The workspace whose `availability` its visitor is told (nil: not told).
    var availabilityWorkspace: String?
    /// What its visitor was last told.
    var availability: VisitorAvailability?
    /// An operator's or an admin's: private notes are written to it. A
    /// visitor's never gets one, whatever path the note takes (live, held,
    /// repaired): each is decided here.
    let seesNotes: Bool

    init(
        connection: UInt64, peer: ChatPeer, sessionID: String, joinID: UInt64, state: State, accessChecked: Bool,
        seesNotes: Bool
    ) {
        self.connection = connection
        self.peer = peer
        self.sessionID = sessionID
        self.joinID = joinID
        self.state = state
        self.accessChecked = accessChecked
        self.seesNotes = seesNotes
    }

    /// Whether `frame` may be written to this connection.
    func mayRead(_ frame: SessionFrame) -> Bool { seesNotes || !frame.staffOnly }

    /// The newest message this connection has, once its replay is out.
    var lastSeq: Int64? {
        switch state {
        case .replaying: nil
        case .live(let lastSeq), .repairing(let lastSeq, _): lastSeq
        }
    }

    var isRepairing: Bool {
        if case .repairing = state { return true }
        return false
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
            // Typing, read and session events carry no seq and are never held.
            guard let seq = frame.seq else { return .write }
            guard seq > lastSeq else { return .skip }
            if seq == lastSeq + 1 {
                state = .live(lastSeq: seq)
                return mayRead(frame) ? .write : .withhold
            }
            guard holdLimit > 0 else { return .overflow }
            state = .repairing(lastSeq: lastSeq, held: [frame])
            return .gap
        case .repairing(let lastSeq, var held):
            guard let seq = frame.seq else { return .write }
            guard seq > lastSeq else { return .skip }
            if seq == lastSeq + 1 {
                // The caller writes it, then what it releases (`released`).
                state = .repairing(lastSeq: seq, held: held)
                return mayRead(frame) ? .write : .withhold
            }
            guard held.count < holdLimit else { return .overflow }
            state = .live(lastSeq: 0)
            let index = held.firstIndex { ($0.seq ?? 0) >= seq } ?? held.count
            if index < held.count && held[index].seq == seq {
                state = .repairing(lastSeq: lastSeq, held: held)
                return .skip
            }
            held.insert(frame, at: index)
            state = .repairing(lastSeq: lastSeq, held: held)
            return .hold
        }
    }

    /// While repairing: the held frames that now follow on without a gap,
    /// in order; goes live when nothing is left held.
    func released() -> [SessionFrame] {
        guard case .repairing(var lastSeq, let held) = state else { return [] }
        var release: [SessionFrame] = []
        var index = 0
        while index < held.count, let seq = held[index].seq, seq <= lastSeq + 1 {
            if seq == lastSeq + 1 {
                if mayRead(held[index]) { release.append(held[index]) }
                lastSeq = seq
            }
            index += 1
        }
        state =
            index == held.count ? .live(lastSeq: lastSeq) : .repairing(lastSeq: lastSeq, held: Array(held[index...]))
        return release
    }

    /// The database has no more messages up to `seq` than what was offered
    /// (deleted ones leave holes): counts them as had, then `released()`.
    func settle(through seq: Int64) -> [SessionFrame] {
        switch state {
        case .replaying: return []
        case .live(let lastSeq):
            state = .live(lastSeq: max(lastSeq, seq))
            return []
        case .repairing(let lastSeq, let held):
            state = .repairing(lastSeq: max(lastSeq, seq), held: held)
            return released()
        }
    }

    /// The replay has been sent up to `lastSeq`: goes live and returns what
    /// was held and is still news, in order (messages the replay had are
    /// skipped). A gap among them leaves the subscription repairing.
    func goLive(after lastSeq: Int64) -> [SessionFrame] {
        guard case .replaying(let held) = state else { return [] }
        state = .live(lastSeq: lastSeq)
        var release: [SessionFrame] = []
        for frame in held {
            switch offer(frame, holdLimit: Int.max) {
            case .write:
                release.append(frame)
                if isRepairing { release.append(contentsOf: released()) }
            case .withhold:
                if isRepairing { release.append(contentsOf: released()) }
            case .hold, .gap, .skip, .overflow: break
            }
        }
        return release
    }
}
