import SwitchboardSystem

/// Wall-clock windows of a fixed length that take turns between two sides,
/// A and B, so that one run can compare its latency with something beside it
/// switched on and off: `loadtest abuser --alternate S` attacks only in
/// the B windows of the same clock. Two separate runs differ by more than
/// such an effect (checkpoints, the database growing, the machine's
/// neighbours); two sides of one run see the same conditions, a few seconds
/// apart, all along.
///
/// The sides go A B B A A B B A (window w is B when (w + 1) / 2 is odd), not
/// A B A B: with plain turns, A always came first in each pair, and A/A runs
/// at 3,000 msg/s gave B a p99 5-12% below A's in every repeat (a drift
/// over the run, or anything with the two windows' period, favoured one
/// side). In pairs of pairs a linear drift and such a period weigh on both
/// sides alike.
///
/// A send counts for the window it was scheduled in. The first 250 ms of each
/// window (by default; `loadtest --alternate-settle S`) count for neither side,
/// while what the previous window left queued is worked off (a p99 of tens of
/// milliseconds drains in far less; uploads cut as an A window begins leave the
/// gateway up to a few seconds of bytes to store). The rest counts whole: an
/// abuser's burst as its window opens is part of its effect.
public struct AlternatingWindows: Sendable, Equatable {
    public enum Side: Sendable, Equatable { case a, b }

    public let windowNanoseconds: UInt64
    public static let defaultSettlingSeconds = 0.25
    public let settlingNanoseconds: UInt64
    /// CLOCK_REALTIME minus CLOCK_MONOTONIC when the run began: turns the
    /// harness's monotonic send stamps into the wall clock the other process
    /// switches on (both read the same machine's clock).
    let realtimeOffset: UInt64

    public init(windowSeconds: Double, realtimeOffset: UInt64, settlingSeconds: Double = defaultSettlingSeconds) {
        windowNanoseconds = UInt64(windowSeconds * 1e9)
        settlingNanoseconds = UInt64(settlingSeconds * 1e9)
        self.realtimeOffset = realtimeOffset
    }

    /// Windows on this machine's wall clock, starting now.
    public static func onWallClock(
        windowSeconds: Double, settlingSeconds: Double = defaultSettlingSeconds
    ) -> AlternatingWindows {
        let wall = UInt64(UnixClock.nowMicroseconds()) * 1000
        return AlternatingWindows(
            windowSeconds: windowSeconds, realtimeOffset: wall &- MonotonicClock.nanoseconds(),
            settlingSeconds: settlingSeconds)
    }

    /// The side of the window this instant falls in on the wall clock, settling time included.
    public static func sideNow(windowSeconds: Double) -> Side {
        side(ofWall: UInt64(UnixClock.nowMicroseconds()) * 1000, windowNanoseconds: UInt64(windowSeconds * 1e9))
    }

    /// The side a send scheduled at `monotonic` (nanoseconds) counts for, or
    /// nil when it falls in the settling time at the start of a window.
    @inline(__always)
    public func side(ofMonotonic monotonic: UInt64) -> Side? {
        let wall = monotonic &+ realtimeOffset
        guard wall % windowNanoseconds >= settlingNanoseconds else { return nil }
        return Self.side(ofWall: wall, windowNanoseconds: windowNanoseconds)
    }

    /// The side of the window holding wall-clock instant `wall` (nanoseconds
    /// since the epoch), settling time included: what the abuser switches on.
    @inline(__always)
    public static func side(ofWall wall: UInt64, windowNanoseconds: UInt64) -> Side {
        ((wall / windowNanoseconds + 1) >> 1) & 1 == 0 ? .a : .b
    }
}
