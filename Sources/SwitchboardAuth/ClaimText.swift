/// Textual rules for claims that end up in logs, database rows and other clients'
/// screens (PROTOCOL.md, "Authentication").
enum ClaimText {
    /// Limit for `sub` and `name`, in UTF-8 bytes.
    static let maxBytes = 128

    /// True when `text` has no control characters (Unicode category Cc: C0, DEL, C1),
    /// NUL included: they would corrupt log lines and break C strings downstream.
    static func isPrintable(_ text: String) -> Bool {
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if v < 0x20 || (v >= 0x7F && v <= 0x9F) { return false }
        }
        return true
    }

    /// The canonical lower-case form of UUID text in the 8-4-4-4-12 hex layout
    /// (RFC 9562 4, which allows either case on input), or nil. No braces, no URN prefix.
    static func canonicalUUID(_ text: String) -> String? {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (index, c) in utf8.enumerated() {
            switch index {
            case 8, 13, 18, 23:
                guard c == UInt8(ascii: "-") else { return nil }
                out.append(c)
            default:
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): out.append(c)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): out.append(c + 32)
                default: return nil
                }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
