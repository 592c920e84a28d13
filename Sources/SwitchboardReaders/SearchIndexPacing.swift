/// When the search indexer runs its next pass. Search is background work
/// that yields to the durable path: indexing a message costs the database
/// about as much as storing it (docs/database.md, "Search"), so while the
/// writer is behind (more commands wait than it takes in a batch) the
/// indexer takes at most `busySharePercent`
/// of its connection's time (after a pass of t, it waits t·(100−s)/s), and
/// search falls behind rather than acknowledgements; once the writer keeps
/// up, it catches up at full speed. An idle indexer (its last pass found
/// the backlog empty) waits `idleMilliseconds`.
public struct SearchIndexPacing: Sendable, Equatable {
    public let idleMilliseconds: Int
    public let busySharePercent: Int

    /// The gateway's defaults (`search.index_interval_ms`,
    /// `search.index_busy_share_percent`), which writer-bench runs too. 5%:
    /// acknowledgements before search's freshness after a burst
    /// (docs/database.md, "Search").
    public static let standard = SearchIndexPacing(idleMilliseconds: 200, busySharePercent: 5)

    public init(idleMilliseconds: Int, busySharePercent: Int) {
        precondition(idleMilliseconds >= 0 && (1...100).contains(busySharePercent))
        self.idleMilliseconds = idleMilliseconds
        self.busySharePercent = busySharePercent
    }

    /// Milliseconds to wait after `pass`, which took `passMicroseconds`.
    public func wait(after pass: SearchIndexPass, passMicroseconds: Int, writerBusy: Bool) -> Int {
        guard pass.more else { return idleMilliseconds }
        guard writerBusy else { return 0 }
        return max(0, passMicroseconds) * (100 - busySharePercent) / busySharePercent / 1000
    }
}
