/// Parses the subset of TOML the configuration uses: `[section]` headers,
/// `key = value` with strings, integers (with `_` separators), booleans and
/// single-line arrays of strings, and `#` comments. Anything else is refused
/// with the line number rather than guessed at.
public enum ConfigFileParser {
    public static func parse(_ text: String, source: String) throws(ConfigError) -> [String: ConfigValue] {
        var values: [String: ConfigValue] = [:]
        var section = ""
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let where_ = "\(source):\(offset + 1)"
            let line = stripComment(rawLine).trimmingWhitespace()
            if line.isEmpty { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), !line.hasPrefix("[[") else {
                    throw ConfigError(key: "", message: "\(where_): malformed section header '\(line)'")
                }
                section = String(line.dropFirst().dropLast()).trimmingWhitespace()
                guard isValidKey(section) else {
                    throw ConfigError(key: "", message: "\(where_): invalid section name '\(section)'")
                }
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigError(key: "", message: "\(where_): expected 'key = value', found '\(line)'")
            }
            let name = String(line[..<equals]).trimmingWhitespace()
            guard isValidKey(name) else {
                throw ConfigError(key: "", message: "\(where_): invalid key '\(name)'")
            }
            let key = section.isEmpty ? name : "\(section).\(name)"
            let valueText = String(line[line.index(after: equals)...]).trimmingWhitespace()
            guard values[key] == nil else {
                throw ConfigError(key: key, message: "\(where_): defined twice")
            }
            values[key] = try parseValue(valueText, key: key, location: where_)
        }
        return values
    }

    static func parseValue(_ text: String, key: String, location: String) throws(ConfigError) -> ConfigValue {
        if text == "true" { return .boolean(true) }
        if text == "false" { return .boolean(false) }
        if text.hasPrefix("\"") {
            guard let (string, rest) = parseString(Substring(text)), rest.trimmingWhitespace().isEmpty else {
                throw ConfigError(key: key, message: "\(location): malformed string \(text)")
            }
            return .string(string)
        }
        if text.hasPrefix("[") {
            guard text.hasSuffix("]") else {
                throw ConfigError(key: key, message: "\(location): arrays must open and close on one line")
            }
            var items: [String] = []
            var rest = Substring(text.dropFirst().dropLast())
            while true {
                rest = Substring(String(rest).trimmingWhitespace())
                if rest.isEmpty { break }
                guard let (item, after) = parseString(rest) else {
                    throw ConfigError(key: key, message: "\(location): arrays may hold only quoted strings")
                }
                items.append(item)
                rest = Substring(String(after).trimmingWhitespace())
                if rest.hasPrefix(",") {
                    rest = rest.dropFirst()
                } else if !rest.isEmpty {
                    throw ConfigError(key: key, message: "\(location): expected ',' between array items")
                }
            }
            return .strings(items)
        }
        let digits = text.replacingUnderscores()
        if let number = Int(digits) { return .integer(number) }
        throw ConfigError(key: key, message: "\(location): cannot read value '\(text)' (quote strings)")
    }

    /// A basic TOML string with the common escapes; returns the rest of the input.
    static func parseString(_ text: Substring) -> (String, Substring)? {
        guard text.first == "\"" else { return nil }
        var out = ""
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            let c = text[index]
            if c == "\"" { return (out, text[text.index(after: index)...]) }
            if c == "\\" {
                index = text.index(after: index)
                guard index < text.endIndex else { return nil }
                switch text[index] {
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "\"": out.append("\"")
                case "\\": out.append("\\")
                default: return nil
                }
            } else {
                out.append(c)
            }
            index = text.index(after: index)
        }
        return nil
    }

    private static func stripComment(_ line: Substring) -> Substring {
        var inString = false
        var escaped = false
        for index in line.indices {
            let c = line[index]
            if escaped { escaped = false; continue }
            if c == "\\" && inString { escaped = true; continue }
            if c == "\"" { inString.toggle() }
            if c == "#" && !inString { return line[..<index] }
        }
        return line
    }

    private static func isValidKey(_ key: String) -> Bool {
        !key.isEmpty && key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = lastIndex(where: { !isSpace($0) })!
        return String(self[first...last])
    }

    func replacingUnderscores() -> String { String(filter { $0 != "_" }) }
}
