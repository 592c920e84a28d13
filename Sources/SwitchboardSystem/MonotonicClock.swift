#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_MONOTONIC, for measuring and for deadlines.
public enum MonotonicClock {
    /// Nanoseconds (a vDSO call: cheap enough for a hot path). The writer
    /// times commits with it, the load harness every latency.
    @inline(__always)
    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// Milliseconds from the coarse clock, which costs no system call and is
    /// accurate to a few milliseconds: plenty for timeouts of seconds (the
    /// event loops' time).
    public static func coarseMilliseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &now)
        return UInt64(now.tv_sec) &* 1000 &+ UInt64(now.tv_nsec / 1_000_000)
    }
}
