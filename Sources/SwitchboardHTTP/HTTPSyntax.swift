/// Byte classes and small helpers from the HTTP grammar, shared by the parser,
/// the headers and the router. Kept as switches over bytes, not String operations,
/// because they run for every byte of every request head.
enum HTTPSyntax {
    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let colon = UInt8(ascii: ":")

    /// RFC 9110 5.6.2: tchar, the characters of a token (method, field name).
    @inline(__always)
    static func isTokenChar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// RFC 9110 5.5: field-value characters are VCHAR, obs-text, SP and HTAB.
    /// Everything else (NUL, bare CR, other controls, DEL) is refused.
    @inline(__always)
    static func isFieldValueChar(_ byte: UInt8) -> Bool {
        byte == tab || (byte >= 0x20 && byte != 0x7F)
    }

    /// RFC 9112 3.2 with RFC 3986: a request-target is visible ASCII, no whitespace.
    @inline(__always)
    static func isTargetChar(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F
    }

    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == tab
    }

    @inline(__always)
    static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 {
        (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) ? byte | 0x20 : byte
    }

    /// ASCII case-insensitive equality; `lowercaseLiteral` must already be lowercase.
    static func equalsIgnoringCase(_ bytes: some Collection<UInt8>, _ lowercaseLiteral: String.UTF8View) -> Bool {
        bytes.count == lowercaseLiteral.count
            && zip(bytes, lowercaseLiteral).allSatisfy { lowercased($0) == $1 }
    }

    static func equalsIgnoringCase(_ lhs: some StringProtocol, _ rhs: some StringProtocol) -> Bool {
        lhs.utf8.count == rhs.utf8.count && zip(lhs.utf8, rhs.utf8).allSatisfy { lowercased($0) == lowercased($1) }
    }

    /// Drops leading and trailing SP/HT (OWS, RFC 9110 5.6.3).
    static func trimmingWhitespace(_ text: Substring) -> Substring {
        let utf8 = text.utf8
        guard let first = utf8.firstIndex(where: { !isWhitespace($0) }) else { return text[text.endIndex...] }
        let last = utf8.lastIndex(where: { !isWhitespace($0) })!
        return Substring(utf8[first...last])
    }

    /// Decodes %XX escapes (RFC 3986 2.1), and "+" as a space when asked (the
    /// application/x-www-form-urlencoded convention browsers use in queries).
    /// A malformed escape is kept as written rather than refused.
    static func percentDecoded(_ text: Substring, plusAsSpace: Bool) -> String {
        let utf8 = Array(text.utf8)
        guard utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(text)
        }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        var i = 0
        while i < utf8.count {
            let byte = utf8[i]
            if byte == UInt8(ascii: "%"), i + 2 < utf8.count,
                let high = hexValue(utf8[i + 1]), let low = hexValue(utf8[i + 2])
            {
                out.append(UInt8(high << 4 | low))
                i += 3
                continue
            }
            out.append(plusAsSpace && byte == UInt8(ascii: "+") ? space : byte)
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
