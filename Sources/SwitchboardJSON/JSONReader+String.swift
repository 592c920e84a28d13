/// Strings (RFC 8259 section 7) with UTF-8 validation (RFC 3629 section 4).
extension JSONReader {
    /// Reads the string whose opening quote is at `position`.
    mutating func string() throws(JSONParseError) -> String {
        let open = position
        var index = open + 1
        // Fast path: printable ASCII up to the closing quote needs no decoding.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                guard index - open - 1 <= limits.maxStringBytes else { throw tooLong(open) }
                position = index + 1
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[(open + 1)..<index]), as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { break }
            index += 1
        }
        return try decodeString(open: open, from: index)
    }

    func tooLong(_ open: Int) -> JSONParseError {
        error(open, "string longer than \(limits.maxStringBytes) bytes")
    }

    /// The slow path: escapes, non-ASCII and errors. `from` is the first byte the fast
    /// path did not take.
    mutating func decodeString(open: Int, from start: Int) throws(JSONParseError) -> String {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(start - open + 16)
        decoded.append(contentsOf: bytes[(open + 1)..<start])
        var index = start
        while true {
            guard index < bytes.count else { throw error(index, "unterminated string") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                guard decoded.count <= limits.maxStringBytes else { throw tooLong(open) }
                position = index + 1
                return String(decoding: decoded, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index = try escape(at: index, into: &decoded)
            case 0..<0x20:
                throw error(index, "unescaped control character in string")
            case 0..<0x80:
                // Copy the run of plain ASCII in one go.
                var end = index + 1
                while end < bytes.count {
                    let next = bytes[end]
                    if next == UInt8(ascii: "\"") || next == UInt8(ascii: "\\") || next < 0x20 || next >= 0x80 { break }
                    end += 1
                }
                decoded.append(contentsOf: bytes[index..<end])
                index = end
            default:
                let length = try utf8Sequence(at: index)
                decoded.append(contentsOf: bytes[index..<(index + length)])
                index += length
            }
            if decoded.count > limits.maxStringBytes { throw tooLong(open) }
        }
    }

    /// Validates the multi-byte UTF-8 sequence starting at `index`; returns its length.
    func utf8Sequence(at index: Int) throws(JSONParseError) -> Int {
        let lead = bytes[index]
        let continuations: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: continuations = 1
        case 0xE0:
            continuations = 2
            low = 0xA0  // overlong
        case 0xE1...0xEC, 0xEE...0xEF: continuations = 2
        case 0xED:
            continuations = 2
            high = 0x9F  // UTF-16 surrogates
        case 0xF0:
            continuations = 3
            low = 0x90  // overlong
        case 0xF1...0xF3: continuations = 3
        case 0xF4:
            continuations = 3
            high = 0x8F  // above U+10FFFF
        default:
            throw error(index, "invalid UTF-8 lead byte 0x\(String(lead, radix: 16, uppercase: true))")
        }
        for offset in 1...continuations {
            let at = index + offset
            guard at < bytes.count else { throw error(at, "truncated UTF-8 sequence") }
            let byte = bytes[at]
            let (min, max) = offset == 1 ? (low, high) : (0x80, 0xBF)
            guard byte >= min && byte <= max else { throw error(at, "invalid UTF-8 continuation byte") }
        }
        return continuations + 1
    }

    /// Decodes the escape whose backslash is at `index`; returns the index after it.
    func escape(at index: Int, into decoded: inout [UInt8]) throws(JSONParseError) -> Int {
        guard index + 1 < bytes.count else { throw error(index + 1, "unterminated string") }
        let replacement: UInt8
        switch bytes[index + 1] {
        case UInt8(ascii: "\""): replacement = 0x22
        case UInt8(ascii: "\\"): replacement = 0x5C
        case UInt8(ascii: "/"): replacement = 0x2F
        case UInt8(ascii: "b"): replacement = 0x08
        case UInt8(ascii: "f"): replacement = 0x0C
        case UInt8(ascii: "n"): replacement = 0x0A
        case UInt8(ascii: "r"): replacement = 0x0D
        case UInt8(ascii: "t"): replacement = 0x09
        case UInt8(ascii: "u"): return try unicodeEscape(at: index, into: &decoded)
        default: throw error(index, "invalid escape sequence")
        }
        decoded.append(replacement)
        return index + 2
    }

    /// `\uXXXX`, or a surrogate pair `\uD83D\uDE00` (RFC 8259 section 7).
    func unicodeEscape(at index: Int, into decoded: inout [UInt8]) throws(JSONParseError) -> Int {
        let first = try hex4(at: index + 2)
        var next = index + 6
        let scalar: UInt32
        switch first {
        case 0xD800...0xDBFF:
            guard next + 1 < bytes.count && bytes[next] == UInt8(ascii: "\\") && bytes[next + 1] == UInt8(ascii: "u")
            else { throw error(index, "high surrogate escape without a low surrogate") }
            let second = try hex4(at: next + 2)
            guard (0xDC00...0xDFFF).contains(second) else {
                throw error(next, "high surrogate escape followed by a non-low surrogate")
            }
            scalar = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            next += 6
        case 0xDC00...0xDFFF:
            throw error(index, "low surrogate escape without a high surrogate")
        default:
            scalar = first
        }
        appendUTF8(scalar, to: &decoded)
        return next
    }

    /// RFC 3629 section 3; `scalar` is never a surrogate here.
    func appendUTF8(_ scalar: UInt32, to decoded: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            decoded.append(UInt8(scalar))
        case 0x80..<0x800:
            decoded.append(0xC0 | UInt8(scalar >> 6))
            decoded.append(0x80 | UInt8(scalar & 0x3F))
        case 0x800..<0x10000:
            decoded.append(0xE0 | UInt8(scalar >> 12))
            decoded.append(0x80 | UInt8((scalar >> 6) & 0x3F))
            decoded.append(0x80 | UInt8(scalar & 0x3F))
        default:
            decoded.append(0xF0 | UInt8(scalar >> 18))
            decoded.append(0x80 | UInt8((scalar >> 12) & 0x3F))
            decoded.append(0x80 | UInt8((scalar >> 6) & 0x3F))
            decoded.append(0x80 | UInt8(scalar & 0x3F))
        }
    }

    /// Four hex digits starting at `index`.
    func hex4(at index: Int) throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for at in index..<(index + 4) {
            guard at < bytes.count else { throw error(at, "truncated \\u escape") }
            let byte = bytes[at]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error(at, "invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
