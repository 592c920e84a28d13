/// Canonical UUID text (RFC 9562 section 4: 8-4-4-4-12 hex digits), as PostgreSQL's `uuid` prints it.
/// The one check for ids that arrive from clients (tokens, frames, HTTP paths, inbox cursors, writes).
public enum UUIDText {
    /// `text` lower-cased when it is a canonical UUID in either case; nil otherwise.
    public static func canonical(_ text: String) -> String? {
        guard value(text) != nil else { return nil }
        // Clients almost always send lower case already; only then is a copy made.
        let utf8 = text.utf8
        guard utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "F") }) else { return text }
        return String(
            decoding: utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "F") ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// The UUID's 128 bits as two big-endian halves, from canonical text in
    /// either case; nil when `text` is not one. The one parse of UUID text:
    /// `canonical` checks with it, and the batched writer sends its result as
    /// a binary `uuid`.
    public static func value(_ text: String) -> (high: UInt64, low: UInt64)? {
        var text = text
        return text.withUTF8 { utf8 -> (high: UInt64, low: UInt64)? in
            guard utf8.count == 36 else { return nil }
            var high: UInt64 = 0
            var low: UInt64 = 0
            var digits = 0
            for index in 0..<36 {
                let byte = utf8[index]
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    guard byte == UInt8(ascii: "-") else { return nil }
                    continue
                }
                // Setting bit 5 lower-cases a letter and leaves a digit alone.
                let folded = byte | 0x20
                let nibble: UInt8
                if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                    nibble = byte - UInt8(ascii: "0")
                } else if folded >= UInt8(ascii: "a") && folded <= UInt8(ascii: "f") {
                    nibble = folded - UInt8(ascii: "a") + 10
                } else {
                    return nil
                }
                if digits < 16 { high = high << 4 | UInt64(nibble) } else { low = low << 4 | UInt64(nibble) }
                digits += 1
            }
            return (high, low)
        }
    }

    /// ASCII case-insensitive equality, for UUID text that may come from a token in either case.
    public static func equalIgnoringCase(_ lhs: String, _ rhs: String) -> Bool {
        let left = lhs.utf8
        let right = rhs.utf8
        guard left.count == right.count else { return false }
        return zip(left, right).allSatisfy { lowered($0) == lowered($1) }
    }

    private static func lowered(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
