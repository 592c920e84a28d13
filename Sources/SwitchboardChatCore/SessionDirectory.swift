import SwitchboardChat

/// The newest state of each recent session this loop has seen (by
/// `version`), so that no connection of the loop is ever sent an older state
/// of a session after a newer one: every session object the core sends goes
/// through `freshest`, and an event older than what the loop has already told
/// is dropped. It also knows whether the state it holds was told (sent as
/// `session.updated`) on this loop, so that the same state reaching the loop
/// twice (the event itself, and a re-read inbox page or the bus racing it)
/// is told once. Bounded; a session it forgot is simply learnt again.
/// Loop-confined, like its core.
package struct SessionDirectory {
    private struct Entry {
        var session: SessionInfo
        /// This state (this version) was told on this loop.
        var told: Bool
    }

    private var entries: [String: Entry] = [:]
    private let capacity: Int

    init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    subscript(sessionID: String) -> SessionInfo? { entries[sessionID]?.session }

    /// Keeps `session` if it is at least as new as what is known; returns
    /// whether it is (false: an older state, not to be sent).
    @discardableResult
    mutating func remember(_ session: SessionInfo) -> Bool {
        if let known = entries[session.id] {
            guard session.version >= known.session.version else { return false }
            // The same version keeps whether it was told.
            entries[session.id] = Entry(session: session, told: known.told && session.version == known.session.version)
            return true
        }
        makeRoom()
        entries[session.id] = Entry(session: session, told: false)
        return true
    }

    /// Whether `session` is to be told on this loop: newer than what is
    /// known, or the same state not told yet. Kept as told when it is.
    mutating func tell(_ session: SessionInfo) -> Bool {
        if let known = entries[session.id] {
            guard session.version > known.session.version || (session.version == known.session.version && !known.told)
            else { return false }
        } else {
            makeRoom()
        }
        entries[session.id] = Entry(session: session, told: true)
        return true
    }

    /// The newest known state of `session`'s id: `session` itself when it is
    /// the newest (and then remembered), else the newer one known here.
    mutating func freshest(_ session: SessionInfo) -> SessionInfo {
        remember(session) ? session : entries[session.id]?.session ?? session
    }

    private mutating func makeRoom() {
        guard entries.count >= capacity else { return }
        // Rare: forget an arbitrary half rather than track recency on every change.
        let keep = entries.keys.prefix(capacity / 2)
        entries = Dictionary(uniqueKeysWithValues: keep.map { ($0, entries[$0]!) })
    }
}
