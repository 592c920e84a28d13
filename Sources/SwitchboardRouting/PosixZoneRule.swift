/// The POSIX TZ string a TZif file ends with (`CET-1CEST,M3.5.0,M10.5.0/3`,
/// `EST5EDT,M3.2.0,M11.1.0`, `<+03>-3`): the zone's rule after its last
/// listed transition. Offsets here are seconds east of UTC (POSIX writes
/// them west, hence the signs).
public struct PosixZoneRule: Sendable, Equatable {
    public let standardOffset: Int
    /// Daylight time: its offset and when it starts and ends (local wall clock times).
    public let daylight: Daylight?

    public struct Daylight: Sendable, Equatable {
        public let offset: Int
        public let start: Moment
        public let end: Moment
    }

    /// A day of a year and a time of that day (seconds, may be negative or past 24 h in TZif v3).
    public struct Moment: Sendable, Equatable {
        public enum Day: Sendable, Equatable {
            /// `Mm.w.d`: weekday `d` (0 Sunday) of week `w` (5 = last) of month `m`.
            case monthWeekDay(month: Int, week: Int, weekday: Int)
            /// `Jn`: day 1...365, February 29 never counted.
            case julianNoLeap(Int)
            /// `n`: day 0...365, February 29 counted.
            case zeroBased(Int)
        }
        public let day: Day
        public let seconds: Int

        func date(in year: Int) -> CivilDate {
            switch day {
            case .monthWeekDay(let month, let week, let weekday):
                let first = CivilDate(year: year, month: month, dayOfMonth: 1)!
                // CivilDate counts Monday as 0; POSIX counts Sunday as 0.
                let firstWeekday = (first.weekday + 1) % 7
                var dayOfMonth = 1 + (weekday - firstWeekday + 7) % 7 + (week - 1) * 7
                let length = CivilDate.daysIn(year: year, month: month)
                while dayOfMonth > length { dayOfMonth -= 7 }
                return CivilDate(day: first.day + Int64(dayOfMonth - 1))
            case .julianNoLeap(let n):
                let january = CivilDate(year: year, month: 1, dayOfMonth: 1)!
                let leap = CivilDate.daysIn(year: year, month: 2) == 29
                return CivilDate(day: january.day + Int64(n - 1 + (leap && n >= 60 ? 1 : 0)))
            case .zeroBased(let n):
                return CivilDate(day: CivilDate(year: year, month: 1, dayOfMonth: 1)!.day + Int64(n))
            }
        }
    }

    /// Nil when `text` is not a TZ string this reader understands.
    public init?(_ text: String) {
        var scanner = Scanner(Array(text.utf8))
        guard scanner.name(), let standard = scanner.offset() else { return nil }
        standardOffset = -standard
        if scanner.atEnd {
            daylight = nil
            return
        }
        guard scanner.name() else { return nil }
        var daylightOffset = standardOffset + 3600
        if let given = scanner.offset() { daylightOffset = -given }
        guard scanner.take(0x2C), let start = scanner.moment(), scanner.take(0x2C), let end = scanner.moment(),
            scanner.atEnd
        else { return nil }
        daylight = Daylight(offset: daylightOffset, start: start, end: end)
    }

    /// Seconds east of UTC at `instant` (Unix seconds).
    public func offset(at instant: Int64) -> Int {
        guard let daylight else { return standardOffset }
        let year = CivilDate(day: Self.floorDiv(instant + Int64(standardOffset), 86400)).civil.year
        let start = instantOf(daylight.start, in: year, wallOffset: standardOffset)
        let end = instantOf(daylight.end, in: year, wallOffset: daylight.offset)
        // Northern zones keep daylight time inside a year; southern ones across its turn.
        let inDaylight = start < end ? instant >= start && instant < end : instant >= start || instant < end
        return inDaylight ? daylight.offset : standardOffset
    }

    private func instantOf(_ moment: Moment, in year: Int, wallOffset: Int) -> Int64 {
        moment.date(in: year).day * 86400 + Int64(moment.seconds) - Int64(wallOffset)
    }

    public static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// `CET` (3+ letters) or `<+03>`.
        mutating func name() -> Bool {
            if take(0x3C) {
                while index < bytes.count, bytes[index] != 0x3E { index += 1 }
                return take(0x3E)
            }
            let start = index
            while index < bytes.count, (bytes[index] | 0x20) >= 0x61, (bytes[index] | 0x20) <= 0x7A { index += 1 }
            return index - start >= 3
        }

        mutating func number() -> Int? {
            let start = index
            var value = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39, index - start < 4 {
                value = value * 10 + Int(bytes[index] - 0x30)
                index += 1
            }
            return index > start ? value : nil
        }

        /// `[+-]hh[:mm[:ss]]` in seconds.
        mutating func offset() -> Int? {
            var sign = 1
            if take(0x2D) { sign = -1 } else { _ = take(0x2B) }
            guard let hours = number() else { return nil }
            var seconds = hours * 3600
            if take(0x3A) {
                guard let minutes = number() else { return nil }
                seconds += minutes * 60
                if take(0x3A) {
                    guard let extra = number() else { return nil }
                    seconds += extra
                }
            }
            return sign * seconds
        }

        mutating func moment() -> Moment? {
            let day: Moment.Day
            if take(0x4D) {
                guard let month = number(), take(0x2E), let week = number(), take(0x2E), let weekday = number(),
                    (1...12).contains(month), (1...5).contains(week), (0...6).contains(weekday)
                else { return nil }
                day = .monthWeekDay(month: month, week: week, weekday: weekday)
            } else if take(0x4A) {
                guard let n = number(), (1...365).contains(n) else { return nil }
                day = .julianNoLeap(n)
            } else {
                guard let n = number(), (0...365).contains(n) else { return nil }
                day = .zeroBased(n)
            }
            var seconds = 7200
            if take(0x2F) {
                guard let given = offset() else { return nil }
                seconds = given
            }
            return Moment(day: day, seconds: seconds)
        }
    }
}
