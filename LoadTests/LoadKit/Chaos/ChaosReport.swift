import SwitchboardJSON

/// Everything a chaos run found, for its reports.
public struct ChaosResult: Sendable {
    public var options: ChaosOptions
    /// The harness's report (conversations.json); empty when it wrote none.
    public var report: JSONValue
    public var faults: [ChaosFault]
    public var problems: [String]
    public var drain: DrainOutcome?
    /// The webhooks' outcome (nil with --drain).
    public var webhooks: ChaosWebhookOutcome? = nil

    public var passed: Bool { problems.isEmpty }
}

/// chaos.json and chaos.html (drain.json and drain.html with --drain).
public enum ChaosReport {
    public static func json(_ result: ChaosResult) -> String {
        let faults: [JSONValue] = result.faults.map { fault in
            [
                "name": .string(fault.kind.rawValue), "at": .double(fault.at),
                "recovered_s": fault.recoveredSeconds.map(JSONValue.double) ?? .null, "note": .string(fault.note),
            ]
        }
        let drain: JSONValue =
            result.drain.map { drain in
                var object: JSONObject = [
                    "exit_s": .double(drain.exitSeconds), "exit_code": .int(Int(drain.exitCode)),
                    "connections": .double(drain.connections),
                ]
                for (key, value) in [
                    ("clients", drain.clients), ("closed_with_1001", drain.closedWith1001),
                    ("ended_without_close_frame", drain.endedWithoutCloseFrame),
                ] {
                    if let value { object[key] = .int(value) }
                }
                return .object(object)
            } ?? .null
        var document: JSONObject = [
            "passed": .bool(result.passed), "faults": .array(faults),
            "problems": .array(result.problems.map(JSONValue.string)), "drain": drain,
            "correctness": result.report["correctness"] ?? .null, "figures": result.report["figures"] ?? .null,
        ]
        if let webhooks = result.webhooks { document["webhooks"] = webhooks.json }
        return JSONValue.object(document).text + "\n"
    }

    public static func html(_ result: ChaosResult) -> String {
        let correctness = result.report["correctness"] ?? [:]
        let faultRows = result.faults.map { fault in
            HTMLReport.Row(
                [fault.kind.rawValue, fault.recoveredSeconds.map(PythonFormat.repr) ?? "no", fault.note], numeric: [1],
                marked: fault.recoveredSeconds == nil)
        }
        let errors = (correctness["errors"]?.members ?? []).sorted { $0.key < $1.key }
        let errorTable =
            errors.isEmpty
            ? "<p>none</p>"
            : HTMLReport.table(
                ["code", "count"], errors.map { HTMLReport.Row([$0.key, PythonFormat.str($0.value)], numeric: [1]) },
                numeric: [1])
        let problems = result.problems.isEmpty ? ["none"] : result.problems
        let verdict = result.passed ? "passed" : "FAILED"
        var webhooks: [String] = []
        if let outcome = result.webhooks {
            let rows: [(String, String)] = [
                ("message.created events written", outcome.events.map(String.init) ?? "unknown"),
                ("messages stored that an event reports", outcome.reportableMessages.map(String.init) ?? "unknown"),
                ("events accepted by the receiver (good signature)", String(outcome.accepted)),
                ("events missing", String(outcome.missing)), ("duplicates", String(outcome.duplicates)),
                ("bad signatures", String(outcome.badSignatures)),
                ("deliveries failed for good", outcome.failedDeliveries.map(String.init) ?? "unknown"),
                ("outbox drained after the traffic (s)", outcome.drainSeconds.map(PythonFormat.repr) ?? "not drained"),
                ("webhooks.retry_divisor (test-only)", String(ChaosWebhooks.retryDivisor)),
            ]
            webhooks = [
                HTMLReport.section(
                    "Webhooks",
                    HTMLReport.table(
                        ["what", "count"], rows.map { HTMLReport.Row([$0.0, $0.1], numeric: [1]) }, numeric: [1]))
            ]
        }
        let body =
            [
                "<h1>Chaos run: <span class=\"badge \(result.passed ? "pass" : "fail")\">\(verdict)</span></h1>",
                "<p class=\"timing\">\(ReportEscaping.html(PythonFormat.json(result.report["parameters"] ?? [:])))</p>",
                HTMLReport.section("Deliveries and acks per second, with the faults", timeline(result).svg()),
                HTMLReport.section(
                    "Faults",
                    HTMLReport.table(
                        ["fault", "recovered after (s): ready and storing again", "note"], faultRows, numeric: [1])),
                HTMLReport.section("Errors answered to sends, by code", errorTable),
                HTMLReport.section("Correctness", "<pre>\(ReportEscaping.html(PythonFormat.json(correctness)))</pre>"),
            ] + webhooks + [HTMLReport.list("Problems", problems)]
        return HTMLReport.page(title: "Switchboard chaos run", body: body)
    }

    /// Deliveries and acks per second over the run, each fault a marked instant.
    static func timeline(_ result: ChaosResult) -> ReportLineChart {
        let rows = (result.report["timeline"]?.arrayValue ?? []).compactMap { row -> (Double, Double, Double)? in
            guard let second = PythonFormat.float(row["second"]) else { return nil }
            return (second, PythonFormat.float(row["delivered"]) ?? 0, PythonFormat.float(row["acked"]) ?? 0)
        }
        let lastSecond = rows.map(\.0).max() ?? 0
        let peak = rows.flatMap { [$0.1, $0.2] }.max() ?? 0
        let start = result.report["started_at"]?.stringValue.flatMap(DriveClock.parseUTC).map(Double.init)
        let markers = start.map { start in
            result.faults.map { ReportLineChart.Marker(x: $0.at - start, label: $0.kind.rawValue) }
        }
        func labelled(_ ticks: [Double]) -> [(value: Double, label: String)] {
            ticks.map { (value: $0, label: ReportNumberFormat.compact($0)) }
        }
        return ReportLineChart(
            description: "Deliveries and acks per second, with the faults",
            x: ReportLineChart.Axis(
                title: "second of the run", ticks: labelled(ReportChartScale.ticks(upTo: lastSecond, minimumStep: 1))),
            y: ReportLineChart.Axis(
                title: "per second",
                ticks: labelled(ReportChartScale.ticks(upTo: peak * ReportCharts.headroom, minimumStep: 1))),
            series: rows.isEmpty
                ? []
                : [
                    ReportLineChart.Series(name: "deliveries/s", points: rows.map { (x: $0.0, y: $0.1) }),
                    ReportLineChart.Series(name: "acks/s", points: rows.map { (x: $0.0, y: $0.2) }),
                ],
            markers: markers ?? [])
    }
}
