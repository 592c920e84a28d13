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
///
/// A job woken by commits (the webhook expander) would otherwise run a pass
/// per writer batch while messages keep coming, each paying the pass's fixed
/// cost for a few messages; `passIntervalMilliseconds` keeps one pass's start
/// from the next's while they do, so a steady load is taken a few batches at a
/// time. A wake after a quiet spell longer than that still runs at once.
public struct AfterCommitPacing: Sendable, Equatable {
    public let idleMilliseconds: Int
    public let busySharePercent: Int
    public let passIntervalMilliseconds: Int

    /// The search indexer's defaults (`search.index_interval_ms`,
    /// `search.index_busy_share_percent`), which writer-bench runs too. 5%:
    /// acknowledgements before search's freshness after a burst
    /// (docs/database.md, "Search").
    public static let search = AfterCommitPacing(idleMilliseconds: 200, busySharePercent: 5)

    /// The webhook expander's defaults (`webhooks.backlog_interval_ms`,
    /// `webhooks.backlog_busy_share_percent`). Idle it waits a second, but the
    /// writer wakes it at each commit that left work, so events are made
    /// milliseconds after their messages while the writer keeps up; passes
    /// start at most every `webhooks.backlog_pass_interval_ms` (50) while such
    /// wakes keep coming (docs/webhooks.md, "Passes a few batches at a time").
    public static let webhooks = AfterCommitPacing(
        idleMilliseconds: 1000, busySharePercent: 5, passIntervalMilliseconds: 50)

    public init(idleMilliseconds: Int, busySharePercent: Int, passIntervalMilliseconds: Int = 0) {
        precondition(idleMilliseconds >= 0 && (1...100).contains(busySharePercent))
        precondition(passIntervalMilliseconds >= 0)
        self.idleMilliseconds = idleMilliseconds
        self.busySharePercent = busySharePercent
        self.passIntervalMilliseconds = passIntervalMilliseconds
    }

    /// Of the wait after a pass that took `passMicroseconds`, the part no
    /// wake-up cuts short: what is left of the pass interval since the pass
    /// began, after a pass that found work (`found`) and emptied the backlog.
    /// Catching up (`more`) goes on at once, as `wait` says; a pass that found
    /// nothing (an idle look) leaves the next wake-up free to start a pass at once.
    public func rest(found: Bool, more: Bool, passMicroseconds: Int) -> Int {
        guard found && !more else { return 0 }
        return min(idleMilliseconds, max(0, passIntervalMilliseconds - max(0, passMicroseconds) / 1000))
    }

    /// Milliseconds to wait after a pass that took `passMicroseconds` and
    /// left work (`more`) or emptied the backlog.
    public func wait(more: Bool, passMicroseconds: Int, gatewayBusy: Bool) -> Int {
        guard more else { return idleMilliseconds }
        guard gatewayBusy else { return 0 }
        return max(0, passMicroseconds) * (100 - busySharePercent) / busySharePercent / 1000
    }
}
