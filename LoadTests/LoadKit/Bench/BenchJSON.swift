import SwitchboardJSON

/// Building a driver's results.json, and reading the JSON lines the bench
/// binaries print (writer-bench, `loadtest abuser`).
extension JSONValue {
    /// A number, or null for nil and values JSON cannot hold (NaN, infinity).
    static func optional(_ value: Double?) -> JSONValue {
        guard let value, value.isFinite else { return .null }
        return .double(value)
    }

    static func optional(_ value: Int?) -> JSONValue { value.map { .int($0) } ?? .null }

    static func optional(_ value: Bool?) -> JSONValue { value.map { .bool($0) } ?? .null }

    /// An object of numbers by name (busy cores by party), in the names' order.
    static func numbers(_ values: [String: Double]) -> JSONValue {
        var object = JSONObject()
        for (key, value) in values.sorted(by: { $0.key < $1.key }) { object[key] = .optional(value) }
        return .object(object)
    }

    /// The numbers of an object by name; members that are not numbers are left out.
    var numbers: [String: Double] {
        var values: [String: Double] = [:]
        for (key, value) in members { values[key] = value.doubleValue }
        return values
    }

    /// An object of whole numbers by name (refusals by reason), in the names' order.
    static func counts(_ values: [String: Int]) -> JSONValue {
        var object = JSONObject()
        for (key, value) in values.sorted(by: { $0.key < $1.key }) { object[key] = .int(value) }
        return .object(object)
    }

    /// `report.latencies[name][key]`, a harness report's latency figure.
    func latency(_ name: String, _ key: String) -> Double? { self["latencies"]?[name]?[key]?.doubleValue }

    /// `report.figures[name].value`, a harness report's headline figure.
    func figure(_ name: String) -> Double? { self["figures"]?[name]?["value"]?.doubleValue }
}

enum BenchJSON {
    /// The JSON objects in `text`, one per line; other lines (progress, warnings) are skipped.
    static func lines(_ text: String) -> [JSONValue] {
        text.split(separator: "\n").compactMap { line in
            let trimmed = line.drop { $0 == " " }
            guard trimmed.first == "{", let value = try? JSONParser.parse(String(trimmed)), value.objectValue != nil
            else { return nil }
            return value
        }
    }

    /// The first line of `text` that is a JSON object with "kind": `kind`.
    static func line(kind: String, in text: String) -> JSONValue? {
        lines(text).first { $0["kind"]?.stringValue == kind }
    }
}
