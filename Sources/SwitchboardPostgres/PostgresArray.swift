/// Array parameters in PostgreSQL's text syntax, for statements that take
/// them as text and cast (`$1::uuid[]`, `$2::int[]`).
public enum PostgresArray {
    /// Every element double-quoted with `\` and `"` escaped, so that commas,
    /// braces, quotes and spaces stay data; nil is the literal's unquoted
    /// `NULL`.
    ///
    /// Built from UTF-8 bytes, not Characters: `\` and `"` are ASCII, which
    /// never occurs inside another character's bytes, so escaping bytes
    /// escapes exactly those two, even where a combining mark follows a quote
    /// (a Character `"` with the mark, which no Character comparison equals).
    /// Cheaper too: the webhook dispatcher's records build eight of these a
    /// batch, about 4% of the gateway's CPU in a capacity drain (`perf`,
    /// 2026-11-27) while they broke every string into Characters.
    public static func textLiteral(_ values: [String?]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.reduce(2) { $0 + ($1?.utf8.count ?? 4) + 3 })
        bytes.append(UInt8(ascii: "{"))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            guard let value else {
                bytes.append(contentsOf: "NULL".utf8)
                continue
            }
            bytes.append(UInt8(ascii: "\""))
            for byte in value.utf8 {
                if byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\"") { bytes.append(UInt8(ascii: "\\")) }
                bytes.append(byte)
            }
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }
}
