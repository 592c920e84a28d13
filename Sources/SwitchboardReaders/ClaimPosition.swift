/// Where the next claim starts in the due index (migration 24): after the
/// last delivery the previous claim took, so that it does not read again the
/// entries of deliveries claimed and recorded since, which an index scan must
/// fetch until no open snapshot can see them.
///
/// A claim takes the oldest due deliveries in `(next_attempt_at, id)` order,
/// so what lies behind its last one was taken, or skipped: held by another
/// claim, of an endpoint at its bound, or written by a transaction that
/// committed after this claim began with an earlier time. For those, a claim
/// starts from the front again when the previous one found fewer than it
/// asked for (nothing more ahead), after a failed claim, and at least every
/// `rescanSeconds`; so what is left behind waits at most that long more.
struct ClaimPosition {
    /// A delivery's place in the due index: its `next_attempt_at` in
    /// microseconds since the epoch, then its id.
    struct Key: Comparable {
        var dueMicros: Int64
        var id: Int64

        static func < (a: Key, b: Key) -> Bool { (a.dueMicros, a.id) < (b.dueMicros, b.id) }
    }

    let rescanSeconds: Double
    private var after: Key?
    private var lastFrontScan = -Double.infinity

    init(rescanSeconds: Double) {
        self.rescanSeconds = rescanSeconds
    }

    /// Where a claim made at `now` (monotonic seconds) starts: nil for the front.
    mutating func start(now: Double) -> Key? {
        if let after, now - lastFrontScan < rescanSeconds { return after }
        after = nil
        lastFrontScan = now
        return nil
    }

    /// A claim took up to `last` and, when `full`, as many as it asked for.
    /// Claims on several threads may end in any order: the position only
    /// moves forward between scans from the front.
    mutating func claimed(_ last: Key?, full: Bool) {
        guard full, let last else { return forget() }
        if after.map({ $0 < last }) ?? true { after = last }
    }

    /// The next claim starts from the front (a claim failed, or something
    /// may have come due behind the position).
    mutating func forget() {
        after = nil
        lastFrontScan = -.infinity
    }
}
