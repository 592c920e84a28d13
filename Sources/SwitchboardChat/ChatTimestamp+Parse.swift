/// The fields of "YYYY-MM-DD HH:MM:SS[.f{1,6}]±HH[:MM[:SS]]", range-checked.
struct PostgresTimestamp {
    var year = 0
    var month = 0
    var day = 0
    var secondOfDay = 0
    /// The fraction truncated to milliseconds.
    var milliseconds = 0
    /// East of UTC is positive, as PostgreSQL prints it.
    var offsetSeconds = 0

    init?(_ text: String) {
        var scanner = DigitScanner(Array(text.utf8))
        guard let year = scanner.number(digits: 4), scanner.expect("-"),
            let month = scanner.number(digits: 2), scanner.expect("-"),
            let day = scanner.number(digits: 2), scanner.expect(" ") || scanner.expect("T"),
            let hour = scanner.number(digits: 2), scanner.expect(":"),
            let minute = scanner.number(digits: 2), scanner.expect(":"),
            let second = scanner.number(digits: 2)
        else { return nil }
        guard (1...12).contains(month), (1...ChatTimestamp.daysInMonth(year: year, month: month)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }

        if scanner.expect(".") {
            var fractionDigits = 0
            var scale = 100
            while let digit = scanner.digit() {
                fractionDigits += 1
                milliseconds += digit * scale
                scale /= 10
            }
            guard (1...6).contains(fractionDigits) else { return nil }
        }

        let sign: Int
        if scanner.expect("+") {
            sign = 1
        } else if scanner.expect("-") {
            sign = -1
        } else {
            return nil
        }
        guard let offsetHours = scanner.number(digits: 2), offsetHours < 24 else { return nil }
        var offset = offsetHours * 3600
        if scanner.expect(":") {
            guard let offsetMinutes = scanner.number(digits: 2), offsetMinutes < 60 else { return nil }
            offset += offsetMinutes * 60
            if scanner.expect(":") {
                guard let offsetSeconds = scanner.number(digits: 2), offsetSeconds < 60 else { return nil }
                offset += offsetSeconds
            }
        }
        guard scanner.atEnd else { return nil }

        self.year = year
        self.month = month
        self.day = day
        self.secondOfDay = hour * 3600 + minute * 60 + second
        self.offsetSeconds = sign * offset
    }
}

/// A cursor over ASCII bytes for fixed-width fields.
struct DigitScanner {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var atEnd: Bool { position == bytes.count }

    mutating func expect(_ character: Unicode.Scalar) -> Bool {
        guard position < bytes.count, bytes[position] == UInt8(ascii: character) else { return false }
        position += 1
        return true
    }

    mutating func digit() -> Int? {
        guard position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") else {
            return nil
        }
        position += 1
        return Int(bytes[position - 1] - UInt8(ascii: "0"))
    }

    /// Exactly `digits` decimal digits.
    mutating func number(digits: Int) -> Int? {
        var value = 0
        for _ in 0..<digits {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }
}
