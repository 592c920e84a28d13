/// The parser's cursor over one input. Recursion is one call per nesting level and
/// the depth is checked before descending, so `JSONLimits.maxDepth` bounds the stack.
struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    let limits: JSONLimits
    var position = 0

    /// Below this many members a linear scan finds duplicate keys faster than hashing.
    static let linearKeyCheckLimit = 12

    init(_ bytes: UnsafeBufferPointer<UInt8>, limits: JSONLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    mutating func document() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let result = try value(depth: 0)
        skipWhitespace()
        if position < bytes.count {
            throw error(position, "unexpected \(found(position)) after the JSON value")
        }
        return result
    }

    // MARK: Helpers

    func error(_ offset: Int, _ message: String) -> JSONParseError {
        JSONParseError(offset: offset, message: message)
    }

    /// Names what is at `offset` for an error message.
    func found(_ offset: Int) -> String {
        guard offset < bytes.count else { return "end of input" }
        let byte = bytes[offset]
        if byte > 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    /// RFC 8259 section 2: whitespace is space, tab, line feed and carriage return.
    @inline(__always)
    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    // MARK: Values

    mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
        guard position < bytes.count else { throw error(position, "unexpected end of input, expected a value") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default:
            throw error(position, "expected a value, found \(found(position))")
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let start = position
        for index in 0..<word.utf8CodeUnitCount {
            let offset = start + index
            guard offset < bytes.count, bytes[offset] == word.utf8Start[index] else {
                throw error(offset, "invalid literal, expected '\(word)'")
            }
        }
        position = start + word.utf8CodeUnitCount
    }

    mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
        let open = position
        guard depth <= limits.maxDepth else { throw error(open, "nesting deeper than \(limits.maxDepth) levels") }
        position += 1
        skipWhitespace()
        var elements: [JSONValue] = []
        if position < bytes.count && bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            guard elements.count < limits.maxMembers else {
                throw error(position, "array has more than \(limits.maxMembers) elements")
            }
            elements.append(try value(depth: depth))
            skipWhitespace()
            guard position < bytes.count else { throw error(position, "unexpected end of input in array") }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
                skipWhitespace()
                if position < bytes.count && bytes[position] == UInt8(ascii: "]") {
                    throw error(position, "trailing comma in array")
                }
            case UInt8(ascii: "]"):
                position += 1
                return .array(elements)
            default:
                throw error(position, "expected ',' or ']' in array, found \(found(position))")
            }
        }
    }

    mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
        let open = position
        guard depth <= limits.maxDepth else { throw error(open, "nesting deeper than \(limits.maxDepth) levels") }
        position += 1
        skipWhitespace()
        var keys: [String] = []
        var values: [JSONValue] = []
        var seen: Set<String>? = nil
        if position < bytes.count && bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(JSONObject(uniqueKeys: keys, values: values))
        }
        while true {
            guard position < bytes.count else { throw error(position, "unexpected end of input in object") }
            guard bytes[position] == UInt8(ascii: "\"") else {
                if bytes[position] == UInt8(ascii: "}") && !keys.isEmpty {
                    throw error(position, "trailing comma in object")
                }
                throw error(position, "expected a string key in object, found \(found(position))")
            }
            guard keys.count < limits.maxMembers else {
                throw error(position, "object has more than \(limits.maxMembers) members")
            }
            let keyStart = position
            let key = try string()
            // Two members with one name would make a frame ambiguous (RFC 8259 section 4).
            let duplicate: Bool
            if seen != nil {
                duplicate = !seen!.insert(key).inserted
            } else if keys.count >= Self.linearKeyCheckLimit {
                seen = Set(keys)
                duplicate = !seen!.insert(key).inserted
            } else {
                duplicate = keys.contains(key)
            }
            if duplicate { throw error(keyStart, "duplicate object key") }
            skipWhitespace()
            guard position < bytes.count && bytes[position] == UInt8(ascii: ":") else {
                throw error(position, "expected ':' after object key")
            }
            position += 1
            skipWhitespace()
            values.append(try value(depth: depth))
            keys.append(key)
            skipWhitespace()
            guard position < bytes.count else { throw error(position, "unexpected end of input in object") }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                position += 1
                return .object(JSONObject(uniqueKeys: keys, values: values))
            default:
                throw error(position, "expected ',' or '}' in object, found \(found(position))")
            }
        }
    }

    // MARK: Numbers

    /// RFC 8259 section 6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    mutating func number() throws(JSONParseError) -> JSONNumber {
        let start = position
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        var magnitude: UInt64 = 0
        var overflow = false
        guard position < bytes.count, isDigit(bytes[position]) else {
            throw error(position, "expected a digit in number, found \(found(position))")
        }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count && isDigit(bytes[position]) {
                throw error(position - 1, "leading zero in number")
            }
        } else {
            while position < bytes.count && isDigit(bytes[position]) {
                let digit = UInt64(bytes[position] &- UInt8(ascii: "0"))
                let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(digit)
                overflow = overflow || o1 || o2
                magnitude = sum
                position += 1
            }
        }
        var integer = true
        if position < bytes.count && bytes[position] == UInt8(ascii: ".") {
            integer = false
            position += 1
            try digits("expected a digit after the decimal point")
        }
        if position < bytes.count && (bytes[position] | 0x20) == UInt8(ascii: "e") {
            integer = false
            position += 1
            if position < bytes.count && (bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-"))
            {
                position += 1
            }
            try digits("expected a digit in the exponent")
        }
        let raw = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        var int64: Int64? = nil
        if integer && !overflow {
            if !negative && magnitude <= UInt64(Int64.max) {
                int64 = Int64(magnitude)
            } else if negative && magnitude <= UInt64(Int64.max) + 1 {
                int64 = Int64(bitPattern: 0 &- magnitude)
            }
        }
        return JSONNumber(validatedRaw: raw, int64: int64)
    }

    @inline(__always)
    func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    /// One or more digits.
    mutating func digits(_ message: String) throws(JSONParseError) {
        guard position < bytes.count, isDigit(bytes[position]) else { throw error(position, message) }
        while position < bytes.count && isDigit(bytes[position]) { position += 1 }
    }
}
