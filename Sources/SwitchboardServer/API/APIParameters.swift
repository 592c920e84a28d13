import SwitchboardChat
import SwitchboardHTTP
import SwitchboardReaders

/// Query parameters of the API, each checked with a message naming it.
struct APIParameters {
    private let items: [(String, String)]

    init(_ request: HTTPRequest) {
        items = request.queryItems()
    }

    func string(_ name: String) -> String? {
        items.first { $0.0 == name }?.1
    }

    /// An integer in `range`, `fallback` when absent.
    func integer(_ name: String, in range: ClosedRange<Int64>, default fallback: Int64) throws(ChatError) -> Int64 {
        guard let text = string(name) else { return fallback }
        guard let value = Int64(text), range.contains(value) else {
            throw .badRequest("\"\(name)\" must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// `status=open,assigned`: any of the three statuses, comma-separated; absent means all.
    func statuses() throws(ChatError) -> [SessionStatus] {
        guard let text = string("status") else { return [] }
        guard !text.isEmpty else { throw .badRequest("\"status\" is empty: give open, assigned or closed") }
        var statuses: [SessionStatus] = []
        for part in text.split(separator: ",") {
            guard let status = SessionStatus(rawValue: String(part)) else {
                throw .badRequest("\"status\" must be open, assigned or closed (comma-separated), not \"\(part)\"")
            }
            if !statuses.contains(status) { statuses.append(status) }
        }
        return statuses
    }

    /// `assigned=me|none|any|<operator id>`; absent means any.
    func assigned(as identity: String) throws(ChatError) -> AssignedFilter {
        guard let text = string("assigned") else { return .any }
        switch text {
        case "", "any": return .any
        case "none": return .unassigned
        case "me": return .operatorID(identity)
        default:
            guard text.unicodeScalars.count <= 128, !text.utf8.contains(0) else {
                throw .badRequest("\"assigned\" must be me, none, any or an operator id of at most 128 characters")
            }
            return .operatorID(text)
        }
    }

    /// An RFC 3339 time (`2026-11-22T08:00:00Z`, fraction and offset optional), as
    /// given and as UTC text PostgreSQL takes for any valid input (RFC 3339 allows
    /// offsets up to 23:59 and year 1 minus an offset, which PostgreSQL would refuse as written).
    func timestamp(_ name: String) throws(ChatError) -> (given: String, utc: String) {
        guard let text = string(name), !text.isEmpty else { throw .badRequest("\"\(name)\" is required") }
        guard Self.isRFC3339(text), let utc = RFC3339Time(text)?.postgresUTC else {
            throw .badRequest("\"\(name)\" must be an RFC 3339 time such as 2026-11-22T08:00:00Z")
        }
        return (text, utc)
    }

    /// Date, `T`, time, optional fraction, then `Z` or `±HH:MM`: checked here so that
    /// PostgreSQL never sees a value it would refuse.
    static func isRFC3339(_ text: String) -> Bool {
        let b = Array(text.utf8)
        func digits(_ range: Range<Int>) -> Bool {
            range.upperBound <= b.count && range.allSatisfy { b[$0] >= 0x30 && b[$0] <= 0x39 }
        }
        guard b.count >= 20, digits(0..<4), b[4] == 0x2D, digits(5..<7), b[7] == 0x2D, digits(8..<10),
            b[10] == 0x54 || b[10] == 0x74, digits(11..<13), b[13] == 0x3A, digits(14..<16), b[16] == 0x3A,
            digits(17..<19)
        else { return false }
        func number(_ range: Range<Int>) -> Int { range.reduce(0) { $0 * 10 + Int(b[$1] - 0x30) } }
        let year = number(0..<4)
        let month = number(5..<7)
        guard year >= 1, (1...12).contains(month),
            (1...ChatTimestamp.daysInMonth(year: year, month: month)).contains(number(8..<10)),
            number(11..<13) < 24, number(14..<16) < 60, number(17..<19) <= 60  // RFC 3339 5.7: leap second
        else { return false }
        var index = 19
        if b[index] == 0x2E {
            index += 1
            let start = index
            while index < b.count, b[index] >= 0x30, b[index] <= 0x39 { index += 1 }
            guard index > start else { return false }
        }
        guard index < b.count else { return false }
        if b[index] == 0x5A || b[index] == 0x7A { return index + 1 == b.count }
        guard b[index] == 0x2B || b[index] == 0x2D, b.count == index + 6, digits(index + 1..<index + 3),
            b[index + 3] == 0x3A, digits(index + 4..<index + 6)
        else { return false }
        return number(index + 1..<index + 3) < 24 && number(index + 4..<index + 6) < 60
    }
}
