/// When a job that works through what the writer's batches left behind runs
/// its next pass: the search indexer and the webhook expander. Such work
/// yields to the durable path: it costs the database about as much as storing
/// a message does (docs/database.md, "Search"; docs/writer.md, "Webhook
/// outbox"), so while the gateway is busy (its writer behind: more commands
/// wait than it takes in a batch; or an event loop with no idle time) the job
/// takes at most `busySharePercent` of its connection's time (after a pass of
/// t, it waits t·(100−s)/s), and falls behind rather than acknowledgements;
/// once the gateway has room again, it catches up at full speed. An idle job (its last pass emptied the backlog) waits
/// `idleMilliseconds`.
public struct AfterCommitPacing: Sendable, Equatable {
    public let idleMilliseconds: Int
    public let busySharePercent: Int

    /// The search indexer's defaults (`search.index_interval_ms`,
    /// `search.index_busy_share_percent`), which writer-bench runs too. 5%:
    /// acknowledgements before search's freshness after a burst
    /// (docs/database.md, "Search").
    public static let search = AfterCommitPacing(idleMilliseconds: 200, busySharePercent: 5)

    /// The webhook expander's defaults (`webhooks.backlog_interval_ms`,
    /// `webhooks.backlog_busy_share_percent`). Idle it waits a second, but the
    /// writer wakes it at each commit that left work, so events are made
    /// milliseconds after their messages while the writer keeps up.
    public static let webhooks = AfterCommitPacing(idleMilliseconds: 1000, busySharePercent: 5)

    public init(idleMilliseconds: Int, busySharePercent: Int) {
        precondition(idleMilliseconds >= 0 && (1...100).contains(busySharePercent))
        self.idleMilliseconds = idleMilliseconds
        self.busySharePercent = busySharePercent
    }

    /// Milliseconds to wait after a pass that took `passMicroseconds` and
    /// left work (`more`) or emptied the backlog.
    public func wait(more: Bool, passMicroseconds: Int, gatewayBusy: Bool) -> Int {
        guard more else { return idleMilliseconds }
        guard gatewayBusy else { return 0 }
        return max(0, passMicroseconds) * (100 - busySharePercent) / busySharePercent / 1000
    }
}
