import Synchronization

/// Whether any event loop of the process is saturated, for the work that
/// should yield to them (the search indexer, the webhook expander and
/// dispatcher): their threads and their database backends share the cores
/// with the loops, and at equal priority a saturated loop got a fifth of its
/// core while they ran (docs/webhooks.md, "Yielding to a busy gateway").
public final class LoopSaturation: Sendable {
    private let saturatedLoops = Atomic<Int>(0)

    public init() {}

    /// True while at least one loop spent almost none of its last window asleep.
    public var anySaturated: Bool { saturatedLoops.load(ordering: .relaxed) > 0 }

    /// Loops saturated now (a gauge).
    public var saturatedCount: Int { saturatedLoops.load(ordering: .relaxed) }

    func loopBecame(saturated: Bool) {
        saturatedLoops.add(saturated ? 1 : -1, ordering: .relaxed)
    }
}

/// One loop's busy share over consecutive windows of its own passes: the
/// loop is saturated when it slept in `epoll_wait` for less than
/// `minimumIdlePercent` of a window. Time a runnable loop waits for a core
/// counts as busy, so a loop starved by other threads is saturated too.
struct BusyWindow {
    static let windowMilliseconds: Int32 = 200
    static let windowNanoseconds = UInt64(windowMilliseconds) * 1_000_000
    static let minimumIdlePercent: UInt64 = 10

    private var windowStart: UInt64
    private var idle: UInt64 = 0
    private(set) var saturated = false

    init(startingAt now: UInt64) {
        windowStart = now
    }

    /// Counts a pass that slept `sleptNanoseconds` in `epoll_wait` and woke
    /// at `now`; returns the new state when a window ended with a change.
    mutating func passed(sleptNanoseconds: UInt64, now: UInt64) -> Bool? {
        idle &+= sleptNanoseconds
        let elapsed = now &- windowStart
        guard elapsed >= Self.windowNanoseconds else { return nil }
        let nowSaturated = idle * 100 < elapsed * Self.minimumIdlePercent
        windowStart = now
        idle = 0
        guard nowSaturated != saturated else { return nil }
        saturated = nowSaturated
        return nowSaturated
    }
}
