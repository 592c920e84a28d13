import SwitchboardJSON

/// The result lines of scripts/bench-chat-floor, one JSON object each, as the
/// chat-floor section reads them (`ChatFloorSection`).
public enum ChatFloorRows {
    /// The network floor's line from the harness's conversations report against
    /// chat-floor writing every `flushMs` ms (0: after every pass).
    public static func network(report: JSONValue, flushMs: Int) throws(ReportError) -> String {
        func figure(_ key: String) throws(ReportError) -> JSONValue {
            guard let value = report["figures"]?[key]?["value"], PythonFormat.isNumber(value) else {
                throw ReportError(description: "the report has no figure \(key)")
            }
            return value
        }
        guard let delivery = report["latencies"]?["send_to_delivery"], let passed = report["passed"] else {
            throw ReportError(description: "the report has no send_to_delivery latency or no verdict")
        }
        return PythonFormat.dumps([
            ("kind", "\"network\""), ("flush_ms", String(flushMs)),
            ("server_cores", rounded(try figure("gateway_cpu_cores"), 3)),
            ("harness_cores", rounded(try figure("harness_cpu_cores"), 3)),
            ("stored_per_s", PythonFormat.fixed(PythonFormat.float(try figure("stored_per_second")) ?? 0, 0)),
            ("p50_ms", PythonFormat.json(delivery["p50_ms"] ?? .null)),
            ("p99_ms", PythonFormat.json(delivery["p99_ms"] ?? .null)), ("passed", PythonFormat.json(passed)),
        ])
    }

    /// The storage floor's line from the backend's /proc/PID/stat before and after
    /// inserting `rows` rows; `rate` in messages/s; `ticks` per second of CPU time.
    public static func storage(
        before: String, after: String, rows: Int, rate: Int, ticks: Int
    ) throws(ReportError)
        -> String
    {
        let seconds = try cpuSeconds(after, ticks: ticks) - cpuSeconds(before, ticks: ticks)
        return PythonFormat.dumps([
            ("kind", "\"storage\""), ("rows", String(rows)),
            ("backend_cpu_s", PythonFormat.repr(PythonFormat.round(seconds, 2))),
            ("us_per_row", PythonFormat.repr(PythonFormat.round(seconds / Double(rows) * 1e6, 2))),
            ("cores_at_rate", PythonFormat.repr(PythonFormat.round(seconds / Double(rows) * Double(rate), 3))),
        ])
    }

    /// User + system seconds from the text of /proc/PID/stat.
    static func cpuSeconds(_ stat: String, ticks: Int) throws(ReportError) -> Double {
        guard let paren = stat.lastIndex(of: ")") else { throw ReportError(description: "not a /proc stat line") }
        let fields = stat[paren...].dropFirst(2).split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count > 12, let user = Int(fields[fields.startIndex + 11]),
            let system = Int(fields[fields.startIndex + 12])
        else { throw ReportError(description: "a /proc stat line without CPU times") }
        return Double(user + system) / Double(ticks)
    }

    /// `round(value, decimals)` of a JSON number as Python wrote it: an int stays an int.
    private static func rounded(_ value: JSONValue, _ decimals: Int) -> String {
        if case .number(let number) = value, number.int64 != nil { return PythonFormat.json(value) }
        return PythonFormat.repr(PythonFormat.round(PythonFormat.float(value) ?? .nan, decimals))
    }
}

/// A report or output a renderer cannot use.
public struct ReportError: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}
