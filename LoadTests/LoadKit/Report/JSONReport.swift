import SwitchboardJSON

/// The report as JSON, for scripts and for comparing runs over time, written
/// with the gateway's own `JSONWriter` (compact, keys in the report's order).
///
/// Keys are stable snake_case; times are milliseconds (`_ms`) or seconds (`_s`).
/// Values that are not finite are written as `null`.
public enum JSONReport {
    public static func render(_ report: RunReport) -> String {
        var json = JSONWriter(capacity: 16 * 1024)
        json.beginObject()
        json.key("scenario")
        json.string(report.scenario)
        json.key("passed")
        json.bool(report.passed)
        json.key("started_at")
        json.string(report.startedAt)
        json.key("duration_s")
        decimal(report.durationSeconds, into: &json)
        json.key("parameters")
        json.beginObject()
        for parameter in report.parameters {
            json.key(parameter.name)
            json.string(parameter.value)
        }
        json.endObject()
        // Only for a cluster: a run against one node writes what it always wrote.
        if !report.nodes.isEmpty {
            json.key("nodes")
            json.beginArray()
            for node in report.nodes { write(node, into: &json) }
            json.endArray()
        }
        json.key("figures")
        json.beginObject()
        for figure in report.figures { write(figure, into: &json) }
        json.endObject()
        json.key("latencies")
        json.beginObject()
        for latency in report.latencies { write(latency, into: &json) }
        json.endObject()
        json.key("timeline")
        json.beginArray()
        for point in report.timeline { write(point, into: &json) }
        json.endArray()
        json.key("correctness")
        write(report.correctness, into: &json)
        json.key("targets")
        json.beginArray()
        for target in report.targets { write(target, into: &json) }
        json.endArray()
        json.key("notes")
        json.beginArray()
        for note in report.notes { json.string(note) }
        json.endArray()
        json.endObject()
        return String(decoding: json.bytes, as: UTF8.self) + "\n"
    }

    /// JSON has no NaN or infinity; `null` says "no value" without breaking parsers.
    /// Finite values get at most `maxDecimals` places and never an exponent.
    static func decimal(_ value: Double, maxDecimals: Int = 3, into json: inout JSONWriter) {
        guard value.isFinite, let number = JSONNumber(ReportNumberFormat.trimmed(value, maxDecimals: maxDecimals))
        else {
            json.null()
            return
        }
        json.number(number)
    }

    private static func write(_ node: NodeShare, into json: inout JSONWriter) {
        json.beginObject()
        json.key("url")
        json.string(node.url)
        json.key("connections")
        json.int(node.connections)
        json.endObject()
    }

    private static func write(_ figure: Figure, into json: inout JSONWriter) {
        json.key(figure.key)
        json.beginObject()
        json.key("label")
        json.string(figure.label)
        json.key("value")
        decimal(figure.value, into: &json)
        json.key("unit")
        json.string(figure.unit)
        json.endObject()
    }

    private static func write(_ latency: LatencySummary, into json: inout JSONWriter) {
        json.key(latency.key)
        json.beginObject()
        json.key("label")
        json.string(latency.label)
        json.key("count")
        json.int(Int64(clamping: latency.count))
        for (key, value) in [
            ("p50_ms", latency.p50), ("p90_ms", latency.p90), ("p99_ms", latency.p99), ("p999_ms", latency.p999),
            ("max_ms", latency.max),
        ] {
            json.key(key)
            decimal(value, into: &json)
        }
        json.key("curve")
        json.beginArray()
        for point in latency.curve {
            // Percentiles keep six places: HdrHistogram curves step through 99.9999 and
            // beyond, which three places would round into duplicates of 100.
            json.beginArray()
            decimal(point.percentile, maxDecimals: 6, into: &json)
            decimal(point.milliseconds, into: &json)
            json.endArray()
        }
        json.endArray()
        json.endObject()
    }

    private static func write(_ point: TimelinePoint, into json: inout JSONWriter) {
        json.beginObject()
        for (key, value) in [
            ("second", point.second), ("sent", point.sent), ("acked", point.acked), ("delivered", point.delivered),
            ("connected", point.connected),
        ] {
            json.key(key)
            json.int(value)
        }
        json.endObject()
    }

    private static func write(_ correctness: Correctness, into json: inout JSONWriter) {
        json.beginObject()
        for (key, value) in [
            ("gaps", correctness.gaps), ("duplicates", correctness.duplicates), ("reorders", correctness.reorders),
            ("lost_acks", correctness.lostAcks), ("unanswered", correctness.unanswered),
            ("unexpected_closes", correctness.unexpectedCloses),
            ("verified_in_database", correctness.verifiedInDatabase),
        ] {
            json.key(key)
            json.int(value)
        }
        if correctness.routingChecked {
            json.key("routing_violations")
            json.int(correctness.routingViolations)
        }
        json.key("database_checked")
        json.bool(correctness.databaseChecked)
        json.key("failures")
        json.int(correctness.failures)
        json.key("errors")
        json.beginObject()
        for error in correctness.errorsByCode {
            json.key(error.code)
            json.int(error.count)
        }
        json.endObject()
        json.endObject()
    }

    private static func write(_ target: TargetCheck, into json: inout JSONWriter) {
        json.beginObject()
        json.key("key")
        json.string(target.key)
        json.key("label")
        json.string(target.label)
        json.key("target")
        json.string(target.target)
        json.key("measured")
        json.string(target.measured)
        for (key, number) in [("value", target.value), ("goal", target.goal)] {
            json.key(key)
            if let number, number.isFinite { json.double(number) } else { json.null() }
        }
        json.key("unit")
        json.string(target.unit)
        json.key("met")
        if let met = target.met { json.bool(met) } else { json.null() }
        json.endObject()
    }
}
