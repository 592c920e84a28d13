/// A day of the proleptic Gregorian calendar as days since 1970-01-01,
/// and back (Howard Hinnant's `days_from_civil`): what business hours
/// count in, with no calendar library.
public struct CivilDate: Hashable, Comparable, Sendable {
    /// Days since 1970-01-01 (negative before).
    public let day: Int64

    public init(day: Int64) { self.day = day }

    /// Nil unless `month` and `dayOfMonth` name a real date.
    public init?(year: Int, month: Int, dayOfMonth: Int) {
        guard (1...12).contains(month), dayOfMonth >= 1, dayOfMonth <= Self.daysIn(year: year, month: month) else {
            return nil
        }
        day = Self.days(year: year, month: month, dayOfMonth: dayOfMonth)
    }

    /// Days since 1970-01-01 of a date, unchecked (a 31st of February runs on into March).
    public static func days(year: Int, month: Int, dayOfMonth: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + Int64(dayOfMonth) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146097 + dayOfEra - 719468
    }

    /// `YYYY-MM-DD`, and only that, years 0001 to 9999 (PostgreSQL's `date` has no year 0).
    public init?(iso text: String) {
        let b = Array(text.utf8)
        guard b.count == 10, b[4] == 0x2D, b[7] == 0x2D else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range {
                guard b[i] >= 0x30, b[i] <= 0x39 else { return nil }
                value = value * 10 + Int(b[i] - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), year >= 1, let month = number(5..<7), let dayOfMonth = number(8..<10) else {
            return nil
        }
        self.init(year: year, month: month, dayOfMonth: dayOfMonth)
    }

    /// (year, month, day of month).
    public var civil: (year: Int, month: Int, day: Int) {
        let z = day + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let dayOfEra = z - era * 146097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let dayOfMonth = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0)), Int(month), Int(dayOfMonth))
    }

    /// `YYYY-MM-DD`.
    public var iso: String {
        let (year, month, dayOfMonth) = civil
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(dayOfMonth, 2))"
    }

    /// 0 Monday ... 6 Sunday (1970-01-01 was a Thursday).
    public var weekday: Int { Int(((day + 3) % 7 + 7) % 7) }

    public static func < (a: CivilDate, b: CivilDate) -> Bool { a.day < b.day }

    public static func daysIn(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
