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
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84, bytes[13] == 58, bytes[16] == 58,
            bytes[19] == 90
        else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[range] {
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        return daysFromCivil(year: year, month: month, day: day) * 86400 + hour * 3600 + minute * 60 + second
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
