import CSystem

#if canImport(Glibc)
import Glibc
#endif

/// Monotonic milliseconds. The coarse clock costs no system call and is
/// accurate to a few milliseconds, plenty for timeouts of seconds.
public enum LoopClock {
    public static func nowMilliseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &ts)
        return UInt64(ts.tv_sec) &* 1000 &+ UInt64(ts.tv_nsec / 1_000_000)
    }
}
