/// Strict RFC 8259 parser: one complete document per call, whitespace allowed around
/// the value, nothing else. Refused: trailing commas, leading zeros, NaN and
/// infinity, single quotes, comments, unescaped control characters, lone surrogate
/// escapes, invalid UTF-8, duplicate object keys, and anything over `limits`.
public enum JSONParser {
    public static func parse(
        _ bytes: UnsafeRawBufferPointer, limits: JSONLimits = JSONLimits()
    ) throws(JSONParseError) -> JSONValue {
        guard bytes.count <= limits.maxTotalBytes else {
            throw JSONParseError(
                offset: limits.maxTotalBytes, message: "input longer than \(limits.maxTotalBytes) bytes")
        }
        var reader = JSONReader(bytes.assumingMemoryBound(to: UInt8.self), limits: limits)
        return try reader.document()
    }

    public static func parse(_ bytes: [UInt8], limits: JSONLimits = JSONLimits()) throws(JSONParseError) -> JSONValue {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(JSONParseError) in try parse(raw, limits: limits) }
        }
        return try result.get()
    }

    public static func parse(_ text: String, limits: JSONLimits = JSONLimits()) throws(JSONParseError) -> JSONValue {
        var text = text
        let result = text.withUTF8 { utf8 in
            Result { () throws(JSONParseError) in try parse(UnsafeRawBufferPointer(utf8), limits: limits) }
        }
        return try result.get()
    }
}
