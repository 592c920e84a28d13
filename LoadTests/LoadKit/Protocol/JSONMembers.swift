/// A single-pass walk over the members of one JSON object, yielding each
/// key and value as byte ranges (strings without their quotes, escapes left
/// as they are). Nested values are skipped, not parsed. Enough structure is
/// checked to stay in bounds; the gateway's own JSON is what it reads.
enum JSONMembers {
    /// Calls `body` for each member until it returns false (it has what it
    /// needs); returns false when the object is malformed or cut short before that.
    static func forEach(
        in bytes: UnsafeRawBufferPointer, range: Range<Int>, _ body: (Range<Int>, Range<Int>) -> Bool
    ) -> Bool {
        var index = skipSpace(bytes, range.lowerBound, range.upperBound)
        let end = range.upperBound
        guard index < end, bytes[index] == UInt8(ascii: "{") else { return false }
        index += 1
        while true {
            index = skipSpace(bytes, index, end)
            guard index < end else { return false }
            if bytes[index] == UInt8(ascii: "}") { return true }
            if bytes[index] == UInt8(ascii: ",") {
                index = skipSpace(bytes, index + 1, end)
                guard index < end else { return false }
            }
            guard bytes[index] == UInt8(ascii: "\""), let keyEnd = stringEnd(bytes, index + 1, end) else {
                return false
            }
            let key = (index + 1)..<keyEnd
            index = skipSpace(bytes, keyEnd + 1, end)
            guard index < end, bytes[index] == UInt8(ascii: ":") else { return false }
            index = skipSpace(bytes, index + 1, end)
            guard index < end, let value = valueRange(bytes, index, end) else { return false }
            if !body(key, value.content) { return true }
            index = value.next
        }
    }

    /// Whether the bytes at `range` spell `text` exactly.
    @inline(__always)
    static func equals(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ text: StaticString) -> Bool {
        guard range.count == text.utf8CodeUnitCount else { return false }
        let expected = text.utf8Start
        for offset in 0..<range.count where bytes[range.lowerBound + offset] != expected[offset] { return false }
        return true
    }

    /// A non-negative or negative decimal integer at `range`.
    static func integer(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int64? {
        var index = range.lowerBound
        var negative = false
        if index < range.upperBound, bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard index < range.upperBound, range.upperBound - index <= 18 else { return nil }
        var value: Int64 = 0
        while index < range.upperBound {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int64(digit)
            index += 1
        }
        return negative ? -value : value
    }

    private static func skipSpace(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> Int {
        var index = start
        while index < end {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return index
            }
        }
        return index
    }

    /// The index of the quote closing a string whose content starts at `start`.
    /// Candidate quotes are found eight bytes at a time (`nextQuote`); a quote
    /// preceded by an odd run of backslashes is escaped.
    static func stringEnd(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        var from = start
        while from < end {
            guard let quote = nextQuote(base, from, end) else { return nil }
            var backslashes = 0
            while quote - backslashes - 1 >= start && bytes[quote - backslashes - 1] == UInt8(ascii: "\\") {
                backslashes += 1
            }
            if backslashes % 2 == 0 { return quote }
            from = quote + 1
        }
        return nil
    }

    /// The first `"` in `from..<end`. The strings of a frame are short (ids,
    /// types, bodies of a few dozen bytes), where a call to memchr cost more
    /// than it saved: a word is searched at once instead, with the zero-byte
    /// test on the word XOR a word of quotes, whose lowest flagged byte is
    /// always a true match.
    @inline(__always)
    private static func nextQuote(_ base: UnsafeRawPointer, _ from: Int, _ end: Int) -> Int? {
        var index = from
        while end - index >= 8 {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let spread = word ^ 0x2222_2222_2222_2222
            let found = (spread &- 0x0101_0101_0101_0101) & ~spread & 0x8080_8080_8080_8080
            if found != 0 { return index + found.trailingZeroBitCount / 8 }
            index += 8
        }
        while index < end {
            if base.load(fromByteOffset: index, as: UInt8.self) == UInt8(ascii: "\"") { return index }
            index += 1
        }
        return nil
    }

    private static func valueRange(
        _ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int
    ) -> (content: Range<Int>, next: Int)? {
        switch bytes[start] {
        case UInt8(ascii: "\""):
            guard let close = stringEnd(bytes, start + 1, end) else { return nil }
            return ((start + 1)..<close, close + 1)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < end {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    guard let close = stringEnd(bytes, index + 1, end) else { return nil }
                    index = close
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return (start..<(index + 1), index + 1) }
                default:
                    break
                }
                index += 1
            }
            return nil
        default:
            var index = start
            while index < end {
                switch bytes[index] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), 0x20, 0x09, 0x0A, 0x0D:
                    return (start..<index, index)
                default:
                    index += 1
                }
            }
            return nil
        }
    }
}
