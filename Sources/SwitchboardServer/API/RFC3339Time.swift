import SwitchboardChat

/// An RFC 3339 time already checked by `APIParameters.isRFC3339`, turned into
/// UTC: seconds since the epoch plus the fraction's digits as written.
struct RFC3339Time {
    let epochSeconds: Int64
    let fraction: String

    init?(_ text: String) {
        let b = Array(text.utf8)
        guard b.count >= 20 else { return nil }
        func number(_ range: Range<Int>) -> Int64 { range.reduce(0) { $0 * 10 + Int64(b[$1] - 0x30) } }
        let days = Int64(
            ChatTimestamp.daysFromCivil(
                year: Int(number(0..<4)), month: Int(number(5..<7)), day: Int(number(8..<10))))
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
        let civil = ChatTimestamp.civil(fromDays: Int(days))
        let (year, month, day) = (Int64(civil.year), Int64(civil.month), Int64(civil.day))
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
}
