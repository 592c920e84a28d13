#if canImport(Glibc)
import Glibc
#endif

/// Wall-clock time for token checks. `exp`, `nbf` and `iat` are wall-clock instants
/// (RFC 7519 2, NumericDate), so a monotonic clock would be wrong there.
public enum UnixClock {
    /// Current wall-clock seconds since the epoch (clock_gettime(CLOCK_REALTIME)).
    public static func nowSeconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec)
    }

    /// Current wall-clock microseconds since the epoch: cross-node latency is
    /// measured between two machines' wall clocks, which a monotonic clock cannot span.
    public static func nowMicroseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }
}
