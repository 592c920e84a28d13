/// A workspace's opening hours (`GET/PUT /api/v1/business-hours`,
/// docs/routing.md): intervals of local wall-clock time for each weekday,
/// and dates it is closed all day, in one time zone. Pure: the zone's
/// offsets come in as a function, so any instant can be asked about.
///
/// An interval is `[start, end)` in minutes of its day, `end` at most 1440
/// (`24:00`); one never runs past midnight: `["22:00","24:00"]` on Monday
/// and `["00:00","02:00"]` on Tuesday say the same, and open across the
/// night as one stretch.
public struct BusinessHours: Sendable, Equatable {
    public struct Interval: Sendable, Equatable {
        public let start: Int
        public let end: Int

        public init(start: Int, end: Int) {
            self.start = start
            self.end = end
        }
    }

    public static let weekdayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    public static let maxIntervalsPerDay = 12
    public static let maxClosedDates = 500
    public static let maxTimeZoneBytes = 64

    public let timeZone: String
    /// Seven days, Monday first; each ordered and non-overlapping.
    public let weekly: [[Interval]]
    public let closedDates: Set<CivilDate>

    /// Open, or closed with the instant it next opens (nil: it never does).
    public enum State: Sendable, Equatable {
        case open
        case closed(opensAt: Int64?)
    }

    /// Checked: seven days (absent ones closed) of ordered, non-overlapping
    /// `HH:MM` pairs, ISO dates, sizes bounded. The zone's name is checked for
    /// shape here and for existence by whoever reads the tz database.
    public init(timeZone: String, weekly: [String: [[String]]], closedDates: [String]) throws(BusinessHoursError) {
        guard Self.isZoneName(timeZone) else {
            throw BusinessHoursError("\"time_zone\" must be a tz database name such as Europe/Berlin")
        }
        var days = Array(repeating: [Interval](), count: 7)
        for (name, pairs) in weekly {
            guard let index = Self.weekdayNames.firstIndex(of: name) else {
                throw BusinessHoursError("\"weekly\" has \"\(name)\"; its days are mon, tue, wed, thu, fri, sat, sun")
            }
            guard pairs.count <= Self.maxIntervalsPerDay else {
                throw BusinessHoursError("\"weekly.\(name)\" has more than \(Self.maxIntervalsPerDay) intervals")
            }
            var intervals: [Interval] = []
            for pair in pairs {
                guard pair.count == 2, let start = Self.minutes(pair[0]), let end = Self.minutes(pair[1]),
                    start < 1440
                else {
                    throw BusinessHoursError(
                        "each interval of \"weekly.\(name)\" must be [\"HH:MM\", \"HH:MM\"] (00:00 to 24:00)")
                }
                guard start < end else {
                    throw BusinessHoursError(
                        "\"weekly.\(name)\": \(pair[0])-\(pair[1]) must end after it starts; split an interval "
                            + "past midnight at 24:00 and 00:00")
                }
                if let last = intervals.last, start < last.end {
                    throw BusinessHoursError("\"weekly.\(name)\": intervals must be in order and must not overlap")
                }
                intervals.append(Interval(start: start, end: end))
            }
            days[index] = intervals
        }
        guard closedDates.count <= Self.maxClosedDates else {
            throw BusinessHoursError("\"closed_dates\" has more than \(Self.maxClosedDates) dates")
        }
        var dates = Set<CivilDate>()
        for text in closedDates {
            guard let date = CivilDate(iso: text) else {
                throw BusinessHoursError("\"closed_dates\" must hold dates such as 2026-12-25, not \"\(text)\"")
            }
            dates.insert(date)
        }
        self.timeZone = timeZone
        self.weekly = days
        self.closedDates = dates
    }

    /// Whether it is open at `instant` (Unix seconds), and if not, when it
    /// next opens. `offset`: seconds east of UTC at an instant, in `timeZone`.
    public func state(at instant: Int64, offset: (Int64) -> Int) -> State {
        if isOpen(at: instant, offset: offset) { return .open }
        let today = PosixZoneRule.floorDiv(instant + Int64(offset(instant)), 86400)
        // Each weekday with hours comes back every week; each closed date can take one such week away.
        let horizon = 7 * Int64(closedDates.count { $0.day >= today } + 1) + 1
        var day = today - 1
        while day <= today + horizon {
            var earliest: Int64?
            let date = CivilDate(day: day)
            if !closedDates.contains(date) {
                for interval in weekly[date.weekday] {
                    for candidate in instants(ofWall: day * 86400 + Int64(interval.start) * 60, offset: offset)
                    where candidate > instant && isOpen(at: candidate, offset: offset) {
                        earliest = min(earliest ?? candidate, candidate)
                    }
                }
            }
            if let earliest { return .closed(opensAt: earliest) }
            day += 1
        }
        return .closed(opensAt: nil)
    }

    public func isOpen(at instant: Int64, offset: (Int64) -> Int) -> Bool {
        let local = instant + Int64(offset(instant))
        let date = CivilDate(day: PosixZoneRule.floorDiv(local, 86400))
        guard !closedDates.contains(date) else { return false }
        let minute = Int((local - date.day * 86400) / 60)
        return weekly[date.weekday].contains { $0.start <= minute && minute < $0.end }
    }

    /// The instants whose local time is `wall` (seconds of local time since
    /// the epoch): one, two where the clocks fall back (the same wall time
    /// twice), or, where they spring forward over it, the moment the clock
    /// jumps past it.
    func instants(ofWall wall: Int64, offset: (Int64) -> Int) -> [Int64] {
        let before = offset(wall - 86400)
        let after = offset(wall + 86400)
        var found: [Int64] = []
        for guess in Set([before, after, offset(wall)]) {
            let candidate = wall - Int64(guess)
            if offset(candidate) == guess, !found.contains(candidate) { found.append(candidate) }
        }
        if !found.isEmpty { return found.sorted() }
        // In a gap: the first instant whose local time is at or past `wall`.
        var low = wall - Int64(max(before, after))
        var high = wall - Int64(min(before, after))
        while low < high {
            let middle = low + (high - low) / 2
            if middle + Int64(offset(middle)) >= wall { high = middle } else { low = middle + 1 }
        }
        return [low]
    }

    /// `HH:MM`, 00:00 to 24:00, in minutes.
    static func minutes(_ text: String) -> Int? {
        let b = Array(text.utf8)
        guard b.count == 5, b[2] == 0x3A, [0, 1, 3, 4].allSatisfy({ b[$0] >= 0x30 && b[$0] <= 0x39 }) else {
            return nil
        }
        let hours = Int(b[0] - 0x30) * 10 + Int(b[1] - 0x30)
        let minutes = Int(b[3] - 0x30) * 10 + Int(b[4] - 0x30)
        guard minutes < 60, hours < 24 || (hours == 24 && minutes == 0) else { return nil }
        return hours * 60 + minutes
    }

    /// `HH:MM` of a minute of the day.
    public static func text(_ minutes: Int) -> String {
        let (hours, rest) = (minutes / 60, minutes % 60)
        return (hours < 10 ? "0" : "") + String(hours) + ":" + (rest < 10 ? "0" : "") + String(rest)
    }

    /// Letters, digits, `_`, `-`, `+` in `/`-separated parts, none `.` or `..`:
    /// safe to look up under the tz database's directory.
    public static func isZoneName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= maxTimeZoneBytes else { return false }
        for part in name.split(separator: "/", omittingEmptySubsequences: false) {
            guard !part.isEmpty, part.first != ".", part.first != "-" else { return false }
            for byte in part.utf8 {
                let letter = (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A
                let digit = byte >= 0x30 && byte <= 0x39
                guard letter || digit || byte == 0x5F || byte == 0x2D || byte == 0x2B else { return false }
            }
        }
        return true
    }
}

/// Why a schedule was refused; the message names the field.
public struct BusinessHoursError: Error, Equatable, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
}
