/// An RFC 3339 time already checked by `APIParameters.isRFC3339`, turned into
/// UTC: seconds since the epoch plus the fraction's digits as written.
struct RFC3339Time {
    let epochSeconds: Int64
    let fraction: String

    init?(_ text: String) {
        let b = Array(text.utf8)
        guard b.count >= 20 else { return nil }
        func number(_ range: Range<Int>) -> Int64 { range.reduce(0) { $0 * 10 + Int64(b[$1] - 0x30) } }
        let days = Self.daysFromCivil(year: number(0..<4), month: number(5..<7), day: number(8..<10))
        var seconds = days * 86_400 + number(11..<13) * 3600 + number(14..<16) * 60 + number(17..<19)
        var index = 19
        var digits = ""
        if b[index] == 0x2E {
            index += 1
            while index < b.count, b[index] >= 0x30, b[index] <= 0x39 {
                if digits.utf8.count < 6 { digits.append(Character(UnicodeScalar(b[index]))) }
                index += 1
            }
        }
        guard index < b.count else { return nil }
        if b[index] == 0x2B || b[index] == 0x2D {
            guard b.count == index + 6 else { return nil }
            let offset = number(index + 1..<index + 3) * 3600 + number(index + 4..<index + 6) * 60
            // Local time = UTC + offset, so UTC = local - offset.
            seconds += b[index] == 0x2B ? -offset : offset
        }
        epochSeconds = seconds
        fraction = digits
    }

    /// `YYYY-MM-DD HH:MM:SS[.ffffff]+00`, with ` BC` for years before 1 (PostgreSQL's input form).
    var postgresUTC: String? {
        let days = epochSeconds >= 0 ? epochSeconds / 86_400 : (epochSeconds - 86_399) / 86_400
        let secondOfDay = epochSeconds - days * 86_400
        let (year, month, day) = Self.civilFromDays(days)
        guard year >= -4712, year <= 294_276 else { return nil }
        let bc = year <= 0
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        var text = pad(bc ? 1 - year : year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + " "
        text += pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay % 3600 / 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if !fraction.isEmpty { text += "." + fraction }
        text += "+00"
        return bc ? text + " BC" : text
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civilFromDays(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
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
}
