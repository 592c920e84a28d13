import SwitchboardJSON

/// Everything a soak found, for its reports.
public struct SoakResult: Sendable {
    public var options: SoakOptions
    public var samples: [SoakSample]
    public var traffic: SoakTraffic
    public var trends: [SoakVerdict.Trend]
    public var problems: [String]
    /// When the run started, "YYYY-MM-DD HH:MM UTC".
    public var started: String

    public var passed: Bool { problems.isEmpty }
}

/// soak.json and soak.html.
public enum SoakReport {
    public static func json(_ result: SoakResult) -> String {
        var trends = JSONObject()
        for trend in result.trends {
            trends[trend.key] = [
                "slope_per_min": .double(trend.slopePerMinute), "bound_per_min": .double(trend.boundPerMinute),
                "grows": .bool(trend.grows), "fitted_samples": .int(trend.fitted), "judged": .bool(trend.judged),
            ]
        }
        let rounds: [JSONValue] = result.traffic.rounds.map { round in
            [
                "round": .int(round.number), "exit": .int(Int(round.exit)), "correctness": round.correctness,
                "acked": number(round.acked),
            ]
        }
        let samples: [JSONValue] = result.samples.map { sample in
            [
                "t_min": .double(sample.minutes), "rss_kib": .int(sample.rssKiB), "fds": .int(sample.descriptors),
                "queue_depth": .double(sample.queueDepth),
                "p99_ms": sample.p99Milliseconds.map(JSONValue.double) ?? .null,
                "stolen_cores": sample.stolenCores.map(JSONValue.double) ?? .null,
            ]
        }
        let traffic = result.traffic
        let document: JSONValue = [
            "passed": .bool(result.passed), "minutes": .double(result.options.minutes), "trends": .object(trends),
            "problems": .array(result.problems.map(JSONValue.string)), "rounds": .array(rounds),
            "churn": ["cycles": .int(traffic.churnCycles), "errors": .int(traffic.churnErrors)],
            "api": ["calls": .int(traffic.apiCalls), "errors": .int(traffic.apiErrors)], "samples": .array(samples),
            "parameters": [
                "sessions": .int(result.options.sessions), "rate": .int(result.options.rate),
                "round_s": .int(result.options.roundSeconds), "sample_s": .int(result.options.sampleSeconds),
            ],
        ]
        return document.text + "\n"
    }

    /// A whole number as an integer (as the harness's report holds counts), anything else as it is.
    static func number(_ value: Double) -> JSONValue {
        value == value.rounded() && abs(value) < 1e15 ? .int(Int(value)) : .double(value)
    }

    public static func html(_ result: SoakResult) -> String {
        let verdict = result.passed ? "passed" : "FAILED"
        let traffic = result.traffic
        let rows = result.trends.map { trend in
            HTMLReport.Row(
                [
                    trend.label, PythonFormat.repr(trend.slopePerMinute), PythonFormat.repr(trend.boundPerMinute),
                    trend.judged ? (trend.grows ? "GROWS" : "flat") : "not judged (host steal)",
                ], numeric: [1, 2], marked: trend.grows)
        }
        let problems = result.problems.isEmpty ? ["none"] : result.problems
        let body = [
            "<h1>Soak, \(SoakBenchmarks.minutesText(result.options.minutes)) minutes: "
                + "<span class=\"badge \(result.passed ? "pass" : "fail")\">\(verdict)</span></h1>",
            "<p class=\"timing\">\(traffic.rounds.count) harness rounds, "
                + "\(PythonFormat.grouped(traffic.churnCycles)) churn cycles, "
                + "\(PythonFormat.grouped(traffic.apiCalls)) API calls</p>",
            HTMLReport.section(
                "Series", SoakBenchmarks.charts(result.samples).map { $0.svg() }.joined(separator: "\n")),
            HTMLReport.section(
                "Trends after the first quarter",
                HTMLReport.table(["series", "slope per minute", "bound", ""], rows, numeric: [1, 2])),
            HTMLReport.list("Problems", problems),
        ]
        return HTMLReport.page(title: "Switchboard soak", body: body)
    }
}
