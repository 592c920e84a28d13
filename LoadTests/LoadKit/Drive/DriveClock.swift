import SwitchboardSystem

#if canImport(Glibc)
import Glibc
#endif

/// The clocks a driver reads: monotonic seconds for waits and schedules,
/// wall-clock seconds for what a report records, and the texts of both.
public enum DriveClock {
    public static func monotonicSeconds() -> Double {
        Double(MonotonicClock.nanoseconds()) / 1e9
    }

    /// Seconds since the epoch, with a fraction (Python's `time.time()`).
    public static func wallSeconds() -> Double {
        Double(UnixClock.nowMicroseconds()) / 1e6
    }

    public static func sleep(seconds: Double) {
        guard seconds > 0 else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1 && errno == EINTR { request = remaining }
    }

    /// "HH:MM:SS" in local time, as the scripts' log lines print it.
    public static func localTimeOfDay(_ seconds: Int64 = UnixClock.nowSeconds()) -> String {
        var time = time_t(seconds)
        var parts = tm()
        localtime_r(&time, &parts)
        return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }

    /// The epoch seconds of a report's `started_at` ("2026-11-23T18:11:05Z"), or nil.
    public static func parseUTC(_ text: String) -> Int64? {
        // Exactly YYYY-MM-DDTHH:MM:SSZ; the fields are read as a webhook's created_at is.
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[10] == UInt8(ascii: "T"), bytes[19] == UInt8(ascii: "Z") else { return nil }
        return WebhookTime.microseconds(rfc3339: bytes).map { $0 / 1_000_000 }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146097 + dayOfEra - 719468
    }

    private static func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
}

/// A driver's progress lines on standard error, "[HH:MM:SS tag] text", as
/// scripts/lib/common.sh's `sb_log` prints them.
public struct DriveLog: Sendable {
    public var tag: String

    public init(tag: String) { self.tag = tag }

    public func callAsFunction(_ text: String) {
        ThisProcess.writeStandardError(line(text, at: DriveClock.localTimeOfDay()) + "\n")
    }

    func line(_ text: String, at time: String) -> String { "[\(time) \(tag)] \(text)" }
}
