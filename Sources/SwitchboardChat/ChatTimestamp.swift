/// Converts PostgreSQL's timestamp text to the RFC 3339 form the protocol uses, without Foundation
/// (the gateway reads `timestamptz` columns as text in libpq's text format).
public enum ChatTimestamp {
    /// PostgreSQL's text output for timestamptz with DateStyle ISO ("2026-11-22 08:00:01.234567+00",
    /// fraction 0-6 digits optional, offset "+HH", "+HH:MM" or "+HH:MM:SS", either sign) to RFC 3339 UTC
    /// with exactly three fraction digits ("2026-11-22T08:00:01.234Z"), truncating, applying the offset with
    /// correct day/month/year (and leap year) rollover. Returns the input unchanged if it cannot parse it
    /// (also `infinity`, BC dates and years past 9999, which RFC 3339 cannot express).
    public static func rfc3339(fromPostgres text: String) -> String {
        guard let parsed = PostgresTimestamp(text) else { return text }
        let local = daysFromCivil(year: parsed.year, month: parsed.month, day: parsed.day) * 86_400 + parsed.secondOfDay
        let utc = local - parsed.offsetSeconds
        let days = utc >= 0 ? utc / 86_400 : (utc - 86_399) / 86_400
        let second = utc - days * 86_400
        let date = civil(fromDays: days)
        guard (0...9999).contains(date.year) else { return text }

        var out: [UInt8] = []
        out.reserveCapacity(24)
        append(date.year, digits: 4, to: &out)
        out.append(UInt8(ascii: "-"))
        append(date.month, digits: 2, to: &out)
        out.append(UInt8(ascii: "-"))
        append(date.day, digits: 2, to: &out)
        out.append(UInt8(ascii: "T"))
        append(second / 3600, digits: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        append(second / 60 % 60, digits: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        append(second % 60, digits: 2, to: &out)
        out.append(UInt8(ascii: "."))
        append(parsed.milliseconds, digits: 3, to: &out)
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    private static func append(_ value: Int, digits: Int, to out: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<digits { divisor *= 10 }
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }

    // Howard Hinnant's proleptic Gregorian day arithmetic (days since 1970-01-01): exact for
    // leap years and month lengths with no tables. Public for the HTTP API's time parameters.

    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    public static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
