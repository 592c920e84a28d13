// libFuzzer target for the JSON parser and writer. Built with
// -sanitize=fuzzer,address -parse-as-library, so this file holds declarations only.
//
// The input is parsed; a refusal must point inside the input. A value that parses is
// written back and parsed again, and must come back equal, and writing it a second
// time must give the same bytes.
import SwitchboardJSON

/// Small limits so that the fuzzer reaches every limit with short inputs.
private let limits = JSONLimits(maxDepth: 8, maxStringBytes: 64, maxMembers: 16, maxTotalBytes: 4096)

/// The writer may lengthen a document (U+2028 becomes `\u2028`), so the re-parse
/// allows more bytes; every other limit holds for the written text as for the input.
private let rereadLimits = JSONLimits(maxDepth: 8, maxStringBytes: 64, maxMembers: 16, maxTotalBytes: 4096 * 6)

/// Touches what handlers will read from every value.
private func visit(_ value: JSONValue) {
    switch value {
    case .number(let number):
        if let int = number.int64 { precondition(number.double != nil, "integer \(int) without a double") }
        precondition(JSONNumber(number.raw) == number, "number text \(number.raw) does not re-validate")
    case .array(let elements):
        elements.forEach(visit)
    case .object(let object):
        for (key, member) in object.members {
            precondition(object[key] == member, "lookup of \(key) does not find its member")
            visit(member)
        }
    case .null, .bool, .string:
        break
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTest(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: start, count: count)
    let value: JSONValue
    do {
        value = try JSONParser.parse(input, limits: limits)
    } catch {
        precondition(error.offset >= 0 && error.offset <= max(count, limits.maxTotalBytes), "offset out of range")
        return 0
    }
    visit(value)

    var writer = JSONWriter()
    writer.value(value)
    let again: JSONValue
    do {
        again = try JSONParser.parse(writer.bytes, limits: rereadLimits)
    } catch {
        preconditionFailure("written text refused: \(error)")
    }
    precondition(again == value, "round trip changed the value")

    var second = JSONWriter()
    second.value(again)
    precondition(second.bytes == writer.bytes, "writing is not deterministic")
    return 0
}
