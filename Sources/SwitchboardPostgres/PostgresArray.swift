/// Array parameters in PostgreSQL's text syntax, for statements that take
/// them as text and cast (`$1::uuid[]`, `$2::int[]`).
public enum PostgresArray {
    /// Every element double-quoted with `\` and `"` escaped, so that commas,
    /// braces, quotes and spaces stay data; nil is the literal's unquoted
    /// `NULL`.
    public static func textLiteral(_ values: [String?]) -> String {
        var literal = "{"
        for (index, value) in values.enumerated() {
            if index > 0 { literal += "," }
            guard let value else {
                literal += "NULL"
                continue
            }
            literal += "\""
            for character in value {
                if character == "\\" || character == "\"" { literal += "\\" }
                literal.append(character)
            }
            literal += "\""
        }
        return literal + "}"
    }
}
