/// A minimal JSON tree for the JSON report, built by hand so library code
/// needs no Foundation, and objects keep the order the report gives them.
indirect enum ReportJSONValue {
    case null
    case bool(Bool)
    /// An already-formatted JSON number literal.
    case number(String)
    case string(String)
    case array([ReportJSONValue])
    case object([(key: String, value: ReportJSONValue)])

    static func integer<T: BinaryInteger>(_ value: T) -> ReportJSONValue { .number(String(value)) }

    /// JSON has no NaN or infinity; `null` says "no value" without breaking parsers.
    static func decimal(_ value: Double, maxDecimals: Int = 3) -> ReportJSONValue {
        value.isFinite ? .number(ReportNumberFormat.trimmed(value, maxDecimals: maxDecimals)) : .null
    }

    /// Indented two spaces per level; a container of plain values stays on one
    /// line so a timeline second or a curve point reads as one row.
    func rendered(depth: Int = 0) -> String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let literal): return literal
        case .string(let text): return "\"" + ReportEscaping.json(text) + "\""
        case .array(let items):
            return container(
                "[", "]", items.map { $0.rendered(depth: depth + 1) }, flat: items.allSatisfy(\.isScalar), depth)
        case .object(let members):
            let parts = members.map { "\"\(ReportEscaping.json($0.key))\": " + $0.value.rendered(depth: depth + 1) }
            return container("{", "}", parts, flat: members.allSatisfy(\.value.isScalar), depth)
        }
    }

    private var isScalar: Bool {
        switch self {
        case .array, .object: return false
        default: return true
        }
    }

    private func container(_ open: String, _ close: String, _ parts: [String], flat: Bool, _ depth: Int) -> String {
        if parts.isEmpty { return open + close }
        if flat { return open + parts.joined(separator: ", ") + close }
        let inner = String(repeating: "  ", count: depth + 1)
        let outer = String(repeating: "  ", count: depth)
        return open + "\n" + parts.map { inner + $0 }.joined(separator: ",\n") + "\n" + outer + close
    }
}
