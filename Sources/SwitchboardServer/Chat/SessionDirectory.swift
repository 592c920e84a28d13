import SwitchboardChat

/// The newest state of each recent session this loop has seen (by
/// `version`), so that no connection of the loop is ever sent an older state
/// of a session after a newer one: every session object the core sends goes
/// through `freshest`, and an event older than what the loop has already told
/// is dropped. Bounded; a session it forgot is simply learnt again.
/// Loop-confined, like its core.
struct SessionDirectory {
    private var entries: [String: SessionInfo] = [:]
    private let capacity: Int

    init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    subscript(sessionID: String) -> SessionInfo? { entries[sessionID] }

    /// Keeps `session` if it is at least as new as what is known; returns
    /// whether it is (false: an older state, not to be sent).
    @discardableResult
    mutating func remember(_ session: SessionInfo) -> Bool {
        if let known = entries[session.id] {
            guard session.version >= known.version else { return false }
        } else if entries.count >= capacity {
            // Rare: forget an arbitrary half rather than track recency on every change.
            let keep = entries.keys.prefix(capacity / 2)
            entries = Dictionary(uniqueKeysWithValues: keep.map { ($0, entries[$0]!) })
        }
        entries[session.id] = session
        return true
    }

    /// The newest known state of `session`'s id: `session` itself when it is
    /// the newest (and then remembered), else the newer one known here.
    mutating func freshest(_ session: SessionInfo) -> SessionInfo {
        remember(session) ? session : entries[session.id] ?? session
    }
}
