/// Writes compact JSON straight into a reusable byte buffer: no intermediate strings.
/// Commas are inserted automatically; the caller is responsible for the structure
/// (a `key` before each object member, balanced begin/end).
///
///     var writer = JSONWriter()
///     writer.beginObject()
///     writer.key("type"); writer.string("pong")
///     writer.endObject()
///     socket.send(writer.bytes)
///     writer.reset()
public struct JSONWriter: Sendable {
    public var bytes: [UInt8]
    /// Whether the next value or key needs a comma in front of it.
    private var needsComma = false

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Empties the buffer, keeping its capacity.
    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        needsComma = false
    }

    @inline(__always)
    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// An object member's name; the member's value follows.
    public mutating func key(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { string(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// A string from bytes that are already valid UTF-8 (a slice of a parsed frame).
    public mutating func string(utf8: UnsafeRawBufferPointer) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        appendEscaped(utf8)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    public mutating func int(_ value: Int64) {
        separate()
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        let start = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        bytes[start...].reverse()
        needsComma = true
    }

    public mutating func int(_ value: Int) {
        int(Int64(value))
    }

    /// A finite number in its shortest round-tripping form (JSON has no NaN or infinity).
    public mutating func double(_ value: Double) {
        precondition(value.isFinite, "JSON has no NaN or infinity")
        raw(value.description)
    }

    public mutating func bool(_ value: Bool) {
        raw(value ? "true" : "false")
    }

    public mutating func null() {
        raw("null")
    }

    public mutating func number(_ value: JSONNumber) {
        raw(value.raw)
    }

    /// One value given as JSON text that its source guarantees valid (a
    /// `jsonb` column PostgreSQL wrote): copied, not parsed again.
    public mutating func trustedJSON(_ text: String) {
        raw(text)
    }

    /// Text that is already valid JSON for one value.
    private mutating func raw(_ text: String) {
        separate()
        bytes.append(contentsOf: text.utf8)
        needsComma = true
    }

    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let bool): self.bool(bool)
        case .number(let number): self.number(number)
        case .string(let string): self.string(string)
        case .array(let elements):
            beginArray()
            for element in elements { self.value(element) }
            endArray()
        case .object(let object):
            beginObject()
            for (name, member) in object.members {
                key(name)
                self.value(member)
            }
            endObject()
        }
    }

    // MARK: Escaping

    private static let hexDigits: StaticString = "0123456789abcdef"

    /// RFC 8259 section 7: quote, backslash and U+0000...U+001F must be escaped; the
    /// common control characters get their short forms, the rest `\u00XX`. U+2028 and
    /// U+2029 are escaped too, so that the output is safe inside a JavaScript string.
    private mutating func appendEscaped(_ utf8: UnsafeRawBufferPointer) {
        var runStart = 0
        var index = 0
        let count = utf8.count
        while index < count {
            let byte = utf8[index]
            if byte >= 0x20 && byte != 0x22 && byte != 0x5C && byte != 0xE2 {
                index += 1
                continue
            }
            if byte == 0xE2 {
                // U+2028 is E2 80 A8, U+2029 is E2 80 A9.
                guard index + 2 < count && utf8[index + 1] == 0x80 && (utf8[index + 2] | 1) == 0xA9 else {
                    index += 1
                    continue
                }
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: utf8[runStart..<index]))
                bytes.append(contentsOf: utf8[index + 2] == 0xA8 ? #"\u2028"#.utf8 : #"\u2029"#.utf8)
                index += 3
                runStart = index
                continue
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: utf8[runStart..<index]))
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case 0x22: bytes.append(UInt8(ascii: "\""))
            case 0x5C: bytes.append(UInt8(ascii: "\\"))
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            default:
                let hex = Self.hexDigits.utf8Start
                bytes.append(contentsOf: [
                    UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)],
                ])
            }
            index += 1
            runStart = index
        }
        bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: utf8[runStart..<count]))
    }
}
