/// Parses the subset of TOML 1.0 the configuration uses, exactly as TOML
/// reads it: `[table]` headers and `key = value` lines with bare and dotted
/// keys; values that are strings (basic, with every escape, or literal),
/// decimal integers, booleans, or one-line arrays of strings; `#` comments;
/// LF or CRLF line ends. Everything else TOML has (quoted keys, floats,
/// dates, inline tables, arrays of tables, multi-line strings and arrays,
/// other integer bases) is refused with the file, the line and what was
/// found, and so is everything TOML itself refuses (`TOMLConformanceTests`
/// holds it to the official toml-test suite).
public enum ConfigFileParser {
    /// The file's bytes: UTF-8, as TOML requires, or refused.
    public static func parse(bytes: [UInt8], source: String) throws(ConfigError) -> [String: ConfigValue] {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigError(key: "", message: "\(source):1: the file is not UTF-8 text")
        }
        return try parse(text, source: source)
    }

    public static func parse(_ text: String, source: String) throws(ConfigError) -> [String: ConfigValue] {
        var document = TOMLDocument()
        var line: [Unicode.Scalar] = []
        var number = 1
        var scalars = text.unicodeScalars.makeIterator()
        var pendingCR = false
        while true {
            let next = scalars.next()
            if pendingCR && next != "\n" {
                throw ConfigError(
                    key: "", message: "\(source):\(number): a carriage return must be followed by a line feed")
            }
            pendingCR = false
            switch next {
            case "\r":
                pendingCR = true
            case "\n", nil:
                var cursor = LineCursor(line, location: "\(source):\(number)")
                try cursor.parseLine(into: &document)
                guard next != nil else { return document.values }
                line.removeAll(keepingCapacity: true)
                number += 1
            case let scalar?:
                line.append(scalar)
            }
        }
    }
}

/// What the lines so far defined: values by dotted key, and the tables, by
/// how they came to be (TOML forbids defining a table twice, or a table a
/// dotted key made with a header, or adding to a header's table with dotted
/// keys from elsewhere).
struct TOMLDocument {
    var values: [String: ConfigValue] = [:]
    var headers: Set<String> = []
    var implicitTables: Set<String> = []
    var dottedTables: Set<String> = []
    /// The current `[table]`, as its key segments.
    var table: [String] = []

    mutating func header(_ path: [String], at location: String) throws(ConfigError) {
        let key = path.joined(separator: ".")
        if values[key] != nil { throw ConfigError(key: key, message: "\(location): [\(key)] is already a value") }
        if headers.contains(key) { throw ConfigError(key: key, message: "\(location): table [\(key)] defined twice") }
        if dottedTables.contains(key) {
            throw ConfigError(key: key, message: "\(location): table [\(key)] was already made by dotted keys")
        }
        for end in 1..<path.count {
            let prefix = path[..<end].joined(separator: ".")
            if values[prefix] != nil {
                throw ConfigError(key: key, message: "\(location): '\(prefix)' is a value, not a table")
            }
            if !headers.contains(prefix) && !dottedTables.contains(prefix) { implicitTables.insert(prefix) }
        }
        implicitTables.remove(key)
        headers.insert(key)
        table = path
    }

    mutating func assign(_ path: [String], _ value: ConfigValue, at location: String) throws(ConfigError) {
        let full = table + path
        let key = full.joined(separator: ".")
        if values[key] != nil { throw ConfigError(key: key, message: "\(location): defined twice") }
        if headers.contains(key) || implicitTables.contains(key) || dottedTables.contains(key) {
            throw ConfigError(key: key, message: "\(location): '\(key)' is already a table")
        }
        for end in (table.count + 1)..<full.count {
            let prefix = full[..<end].joined(separator: ".")
            if values[prefix] != nil {
                throw ConfigError(key: key, message: "\(location): '\(prefix)' is a value, not a table")
            }
            if headers.contains(prefix) || implicitTables.contains(prefix) {
                throw ConfigError(
                    key: key,
                    message: "\(location): table '\(prefix)' has a [header]: add to it there, not by dotted keys")
            }
            dottedTables.insert(prefix)
        }
        values[key] = value
    }
}

/// One line's scalars and a position in them.
struct LineCursor {
    private let scalars: [Unicode.Scalar]
    private var index = 0
    let location: String

    init(_ scalars: [Unicode.Scalar], location: String) {
        self.scalars = scalars
        self.location = location
    }

    private var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }
    private func peek(_ offset: Int) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private func refuse(_ message: String) -> ConfigError {
        ConfigError(key: "", message: "\(location): \(message)")
    }

    mutating func parseLine(into document: inout TOMLDocument) throws(ConfigError) {
        skipSpace()
        guard let first = current, first != "#" else { return try endOfLine() }
        if first == "[" {
            index += 1
            if current == "[" { throw refuse("arrays of tables ([[...]]) are not supported in the configuration") }
            skipSpace()
            let path = try keyPath()
            guard current == "]" else { throw refuse("expected ']' to close the table header") }
            index += 1
            try endOfLine()
            return try document.header(path, at: location)
        }
        let path = try keyPath()
        guard current == "=" else { throw refuse("expected 'key = value'") }
        index += 1
        skipSpace()
        let value = try value()
        try endOfLine()
        try document.assign(path, value, at: location)
    }

    private mutating func skipSpace() {
        while current == " " || current == "\t" { index += 1 }
    }

    /// Spaces, then a comment or nothing.
    private mutating func endOfLine() throws(ConfigError) {
        skipSpace()
        guard let scalar = current else { return }
        guard scalar == "#" else { throw refuse("unexpected '\(scalar)' after the value") }
        for scalar in scalars[(index + 1)...] where Self.isControl(scalar) {
            throw refuse("a comment may not hold control character U+\(Self.hex(scalar))")
        }
        index = scalars.count
    }

    /// `a`, `a.b`, `a . b`: bare keys of ASCII letters, digits, '_' and '-', joined by dots.
    private mutating func keyPath() throws(ConfigError) -> [String] {
        var path: [String] = []
        while true {
            if current == "\"" || current == "'" { throw refuse("quoted keys are not supported in the configuration") }
            var segment = ""
            while let scalar = current, Self.isBareKey(scalar) {
                segment.unicodeScalars.append(scalar)
                index += 1
            }
            guard !segment.isEmpty else {
                throw refuse(current.map { "a key may not contain '\($0)'" } ?? "expected a key")
            }
            path.append(segment)
            skipSpace()
            guard current == "." else { return path }
            index += 1
            skipSpace()
        }
    }

    private mutating func value() throws(ConfigError) -> ConfigValue {
        guard let first = current else { throw refuse("expected a value after '='") }
        switch first {
        case "\"", "'":
            return .string(try string())
        case "[":
            return .strings(try array())
        case "t", "f":
            for word in ["true", "false"] where matches(word) {
                index += word.unicodeScalars.count
                return .boolean(word == "true")
            }
        case "{":
            throw refuse("inline tables are not supported in the configuration")
        default:
            if let integer = try integer() { return .integer(integer) }
        }
        let found = String(String.UnicodeScalarView(scalars[index...])).prefix(40)
        throw refuse(
            "cannot read value '\(found)': the configuration takes strings, integers, booleans and arrays of strings")
    }

    private func matches(_ word: String) -> Bool {
        let wordScalars = Array(word.unicodeScalars)
        guard index + wordScalars.count <= scalars.count else { return false }
        guard scalars[index..<(index + wordScalars.count)].elementsEqual(wordScalars) else { return false }
        let after = peek(wordScalars.count)
        return after == nil || after == " " || after == "\t" || after == "#" || after == "," || after == "]"
    }

    /// Decimal, as TOML writes it: an optional sign, no leading zero, '_' only between digits.
    private mutating func integer() throws(ConfigError) -> Int? {
        let start = index
        var text = ""
        if current == "+" || current == "-" {
            if current == "-" { text = "-" }
            index += 1
        }
        if current == "0", let next = peek(1), next == "x" || next == "o" || next == "b" {
            throw refuse("only decimal integers are supported in the configuration")
        }
        var digits = 0
        var lastWasDigit = false
        while let scalar = current {
            if scalar.properties.numericType == .decimal, scalar.isASCII {
                text.unicodeScalars.append(scalar)
                digits += 1
                lastWasDigit = true
            } else if scalar == "_" {
                guard lastWasDigit, let next = peek(1), next.isASCII, next.properties.numericType == .decimal else {
                    throw refuse("'_' in a number must stand between two digits")
                }
                lastWasDigit = false
            } else {
                break
            }
            index += 1
        }
        guard digits > 0 else {
            index = start
            return nil
        }
        if let after = current, after != " " && after != "\t" && after != "#" {
            index = start
            return nil
        }
        let unsigned = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        if unsigned.count > 1 && unsigned.hasPrefix("0") { throw refuse("an integer may not start with 0") }
        guard let value = Int(text) else { throw refuse("integer \(text) is out of range") }
        return value
    }

    /// A basic string (every TOML escape) or a literal one; multi-line strings are refused.
    private mutating func string() throws(ConfigError) -> String {
        let quote = current!
        if peek(1) == quote && peek(2) == quote {
            throw refuse("multi-line strings are not supported in the configuration")
        }
        index += 1
        var out = ""
        while let scalar = current {
            index += 1
            if scalar == quote { return out }
            if Self.isControl(scalar) {
                throw refuse("a string may not hold control character U+\(Self.hex(scalar)) (escape it)")
            }
            guard scalar == "\\" && quote == "\"" else {
                out.unicodeScalars.append(scalar)
                continue
            }
            guard let escape = current else { break }
            index += 1
            switch escape {
            case "b": out.unicodeScalars.append("\u{08}")
            case "t": out.unicodeScalars.append("\t")
            case "n": out.unicodeScalars.append("\n")
            case "f": out.unicodeScalars.append("\u{0C}")
            case "r": out.unicodeScalars.append("\r")
            case "\"": out.unicodeScalars.append("\"")
            case "\\": out.unicodeScalars.append("\\")
            case "u", "U":
                let count = escape == "u" ? 4 : 8
                guard index + count <= scalars.count,
                    let code = UInt32(String(String.UnicodeScalarView(scalars[index..<(index + count)])), radix: 16),
                    let decoded = Unicode.Scalar(code)
                else { throw refuse("\\\(escape) must be followed by \(count) hex digits of a Unicode scalar") }
                out.unicodeScalars.append(decoded)
                index += count
            default:
                throw refuse("unknown escape '\\\(escape)' in a string")
            }
        }
        throw refuse("a string is not closed on its line")
    }

    /// `[ "a", 'b', ]` on one line.
    private mutating func array() throws(ConfigError) -> [String] {
        index += 1
        var items: [String] = []
        while true {
            skipSpace()
            guard let scalar = current, scalar != "#" else {
                throw refuse("arrays must open and close on one line in the configuration")
            }
            if scalar == "]" {
                index += 1
                return items
            }
            guard scalar == "\"" || scalar == "'" else {
                throw refuse("arrays may hold only strings in the configuration")
            }
            items.append(try string())
            skipSpace()
            if current == "," {
                index += 1
            } else if current != "]" {
                throw refuse("expected ',' or ']' after an array item")
            }
        }
    }

    private static func isBareKey(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-": true
        default: false
        }
    }

    /// Control characters TOML allows in no string or comment (tab is allowed).
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || scalar.value == 0x7F
    }

    private static func hex(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
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
