#if canImport(Glibc)
import Glibc
#endif

/// The wall-clock time in UTC: a report's `started_at`, a section's "Run DATE".
enum WallClock {
    /// `2026-01-20T10:00:00Z`.
    static func rfc3339Now() -> String {
        let (date, hour, minute, second) = now()
        return "\(date)T\(hour):\(minute):\(second)Z"
    }

    /// `2026-01-20 10:00 UTC`.
    static func utcMinute() -> String {
        let (date, hour, minute, _) = now()
        return "\(date) \(hour):\(minute) UTC"
    }

    private static func now() -> (date: String, hour: String, minute: String, second: String) {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return (
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))", two(parts.tm_hour),
            two(parts.tm_min), two(parts.tm_sec)
        )
    }
}
