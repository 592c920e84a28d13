import SwitchboardJSON

#if canImport(Glibc)
import Glibc
#endif

/// Values spelled as Python spells them (`str`, `repr`, format specs like `,.2f`):
/// the documents' sections were written by Python scripts first, and their text
/// stays the same byte for byte now that LoadKit writes them.
public enum PythonFormat {
    /// `f"{value:.{decimals}f}"`, with `grouping` `f"{value:,.{decimals}f}"`: the exact
    /// binary value correctly rounded (ties to even), as C's printf does.
    public static func fixed(_ value: Double, _ decimals: Int, grouping: Bool = false) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        var buffer = [CChar](repeating: 0, count: 400)
        let count = withVaList([Int32(decimals), value]) { vsnprintf(&buffer, buffer.count, "%.*f", $0) }
        let text = String(
            decoding: buffer[0..<Int(max(0, min(count, 399)))].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return grouping ? group(text) : text
    }

    /// `f"{value:,}"` for a whole number.
    public static func grouped(_ value: Int) -> String { group(String(value)) }

    /// `repr(value)` (and `str(value)`): the shortest digits that read back as `value`,
    /// in positional form from 1e-4 up to 1e16, else `1.5e-05`, `1e+16`.
    public static func repr(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        let (negative, digits, point) = shortestDigits(value)
        let sign = negative ? "-" : ""
        if point < -3 || point > 16 {
            let exponent = point - 1
            let mantissa = digits.count > 1 ? String(digits.prefix(1)) + "." + digits.dropFirst() : digits
            let magnitude = String(abs(exponent))
            return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + (magnitude.count < 2 ? "0" : "") + magnitude
        }
        if point <= 0 { return sign + "0." + String(repeating: "0", count: -point) + digits }
        if point >= digits.count { return sign + digits + String(repeating: "0", count: point - digits.count) + ".0" }
        return sign + digits.prefix(point) + "." + digits.dropFirst(point)
    }

    /// `round(value, decimals)`: the double nearest the correctly rounded decimal.
    public static func round(_ value: Double, _ decimals: Int) -> Double {
        Double(fixed(value, decimals)) ?? value
    }

    /// `str(value)` of what Python's `json.loads` made of a JSON value: an integer
    /// literal as written, any other number through `float`, `True`, `None`, lists
    /// and dicts as their `repr`.
    public static func str(_ value: JSONValue) -> String {
        if case .string(let text) = value { return text }
        return reprOf(value)
    }

    /// `str(object.get(key, fallback))`.
    public static func str(_ value: JSONValue?, or fallback: String) -> String {
        value.map { str($0) } ?? fallback
    }

    /// `int(value)` of a JSON number (a float truncated) or numeric string.
    public static func int(_ value: JSONValue?) -> Int? {
        switch value {
        case .number(let number)?:
            if isIntegerLiteral(number.raw) { return Int(number.raw) }
            return Double(number.raw).flatMap { $0.isFinite ? Int($0.rounded(.towardZero)) : nil }
        case .string(let text)?: return Int(text.trimmingPythonSpace())
        case .bool(let flag)?: return flag ? 1 : 0
        default: return nil
        }
    }

    /// `json.dumps` of a dict whose values are already JSON text: `{"a": 1, "b": true}`.
    public static func dumps(_ members: [(String, String)]) -> String {
        "{" + members.map { jsonString($0.0) + ": " + $0.1 }.joined(separator: ", ") + "}"
    }

    /// `json.dumps` of what `json.loads` made of `value` (numbers as Python holds them);
    /// `compact`: with `separators=(",", ":")`.
    public static func json(_ value: JSONValue, compact: Bool = false) -> String {
        let (comma, colon) = compact ? (",", ":") : (", ", ": ")
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number):
            if isIntegerLiteral(number.raw) { return integerText(number.raw) }
            let double = Double(number.raw) ?? .nan
            return double.isNaN ? "NaN" : double.isInfinite ? (double < 0 ? "-Infinity" : "Infinity") : repr(double)
        case .string(let text): return jsonString(text)
        case .array(let items): return "[" + items.map { json($0, compact: compact) }.joined(separator: comma) + "]"
        case .object(let object):
            let members = object.members.map { jsonString($0.0) + colon + json($0.1, compact: compact) }
            return "{" + members.joined(separator: comma) + "}"
        }
    }

    /// A JSON string as `json.dumps` writes it (ASCII only: others as \uXXXX).
    public static func jsonString(_ text: String) -> String {
        var result = "\""
        for unit in text.utf16 {
            switch unit {
            case 0x22: result += "\\\""
            case 0x5c: result += "\\\\"
            case 0x0a: result += "\\n"
            case 0x0d: result += "\\r"
            case 0x09: result += "\\t"
            case 0x08: result += "\\b"
            case 0x0c: result += "\\f"
            case 0x20..<0x7f: result.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
            default:
                let hex = String(unit, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return result + "\""
    }

    /// `float(value)` of a JSON number or numeric string.
    public static func float(_ value: JSONValue?) -> Double? {
        switch value {
        case .number(let number)?: return Double(number.raw)
        case .string(let text)?: return Double(text.trimmingPythonSpace())
        case .bool(let flag)?: return flag ? 1 : 0
        default: return nil
        }
    }

    /// Python's truth value of a JSON value (`if value:`).
    public static func truthy(_ value: JSONValue?) -> Bool {
        switch value {
        case nil, .null?: return false
        case .bool(let flag)?: return flag
        case .number(let number)?: return (Double(number.raw) ?? 1) != 0
        case .string(let text)?: return !text.isEmpty
        case .array(let items)?: return !items.isEmpty
        case .object(let object)?: return !object.isEmpty
        }
    }

    /// `isinstance(value, (int, float))` of what `json.loads` made (a bool is an int there).
    public static func isNumber(_ value: JSONValue?) -> Bool {
        switch value {
        case .number?, .bool?: return true
        default: return false
        }
    }

    private static func reprOf(_ value: JSONValue) -> String {
        switch value {
        case .null: return "None"
        case .bool(let flag): return flag ? "True" : "False"
        case .number(let number):
            if isIntegerLiteral(number.raw) { return integerText(number.raw) }
            return repr(Double(number.raw) ?? .nan)
        case .string(let text): return stringRepr(text)
        case .array(let items): return "[" + items.map(reprOf).joined(separator: ", ") + "]"
        case .object(let object):
            return "{" + object.members.map { stringRepr($0.0) + ": " + reprOf($0.1) }.joined(separator: ", ") + "}"
        }
    }

    private static func isIntegerLiteral(_ raw: String) -> Bool {
        !raw.contains(where: { $0 == "." || $0 == "e" || $0 == "E" })
    }

    private static func integerText(_ raw: String) -> String { raw == "-0" ? "0" : raw }

    private static func stringRepr(_ text: String) -> String {
        let quote: Unicode.Scalar = text.contains("'") && !text.contains("\"") ? "\"" : "'"
        let body = ReportEscaping.replacing(text) { scalar in
            switch scalar {
            case "\\": "\\\\"
            case "\n": "\\n"
            case "\r": "\\r"
            case "\t": "\\t"
            case quote: "\\" + String(quote)
            case _ where scalar.value < 0x20 || scalar.value == 0x7f:
                "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: nil
            }
        }
        return String(quote) + body + String(quote)
    }

    /// Commas between thousands in the whole part of a decimal text.
    private static func group(_ text: String) -> String {
        let negative = text.hasPrefix("-")
        let body = negative ? String(text.dropFirst()) : text
        let whole = body.prefix { $0 != "." }
        var result = ""
        for (index, digit) in whole.enumerated() {
            if index > 0 && (whole.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return (negative ? "-" : "") + result + body.dropFirst(whole.count)
    }

    /// The shortest round-tripping digits of a finite `value` (no leading or trailing
    /// zeros, "0" for zero) and where the point goes: value = 0.DIGITS x 10^point.
    private static func shortestDigits(_ value: Double) -> (negative: Bool, digits: String, point: Int) {
        // Swift's description holds the same shortest digits, as 12.5, 1e-05 or 1.5e+16.
        var text = value.magnitude.description
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            text = String(text[..<e])
        }
        let whole = text.prefix { $0 != "." }
        let fraction = text.dropFirst(whole.count + 1)
        var digits = String(whole) + fraction
        var point = whole.count + exponent
        while digits.hasPrefix("0") && digits.count > 1 {
            digits.removeFirst()
            point -= 1
        }
        while digits.hasSuffix("0") && digits.count > 1 { digits.removeLast() }
        if digits == "0" { point = 1 }
        return (value.sign == .minus, digits, point)
    }
}

extension String {
    /// `str.strip()`: whitespace (and the ASCII separators Python counts as space) off both ends.
    public func trimmingPythonSpace() -> String {
        func isSpace(_ c: Character) -> Bool {
            c.isWhitespace || c.unicodeScalars.allSatisfy { (0x1c...0x1f).contains($0.value) }
        }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
