/// The report as JSON, for scripts and for comparing runs over time.
///
/// Keys are stable snake_case; times are milliseconds (`_ms`) or seconds (`_s`).
/// Values that are not finite are written as `null`.
public enum JSONReport {
    public static func render(_ report: RunReport) -> String {
        let root: ReportJSONValue = .object([
            ("scenario", .string(report.scenario)),
            ("passed", .bool(report.passed)),
            ("started_at", .string(report.startedAt)),
            ("duration_s", .decimal(report.durationSeconds)),
            ("parameters", .object(report.parameters.map { ($0.name, .string($0.value)) })),
            ("figures", .object(report.figures.map { ($0.key, figure($0)) })),
            ("latencies", .object(report.latencies.map { ($0.key, latency($0)) })),
            ("timeline", .array(report.timeline.map(timelinePoint))),
            ("correctness", correctness(report.correctness)),
            ("targets", .array(report.targets.map(target))),
            ("notes", .array(report.notes.map { .string($0) })),
        ])
        return root.rendered() + "\n"
    }

    static func figure(_ figure: Figure) -> ReportJSONValue {
        .object([("label", .string(figure.label)), ("value", .decimal(figure.value)), ("unit", .string(figure.unit))])
    }

    static func latency(_ latency: LatencySummary) -> ReportJSONValue {
        // Percentiles keep six places: HdrHistogram curves step through 99.9999 and
        // beyond, which three places would round into duplicates of 100.
        let curve = latency.curve.map { point -> ReportJSONValue in
            .array([.decimal(point.percentile, maxDecimals: 6), .decimal(point.milliseconds)])
        }
        return .object([
            ("label", .string(latency.label)),
            ("count", .integer(latency.count)),
            ("p50_ms", .decimal(latency.p50)),
            ("p90_ms", .decimal(latency.p90)),
            ("p99_ms", .decimal(latency.p99)),
            ("p999_ms", .decimal(latency.p999)),
            ("max_ms", .decimal(latency.max)),
            ("curve", .array(curve)),
        ])
    }

    static func timelinePoint(_ point: TimelinePoint) -> ReportJSONValue {
        .object([
            ("second", .integer(point.second)),
            ("sent", .integer(point.sent)),
            ("acked", .integer(point.acked)),
            ("delivered", .integer(point.delivered)),
            ("connected", .integer(point.connected)),
        ])
    }

    static func correctness(_ correctness: Correctness) -> ReportJSONValue {
        let errors = correctness.errorsByCode.map { ($0.code, ReportJSONValue.integer($0.count)) }
        return .object([
            ("gaps", .integer(correctness.gaps)),
            ("duplicates", .integer(correctness.duplicates)),
            ("reorders", .integer(correctness.reorders)),
            ("lost_acks", .integer(correctness.lostAcks)),
            ("unanswered", .integer(correctness.unanswered)),
            ("unexpected_closes", .integer(correctness.unexpectedCloses)),
            ("verified_in_database", .integer(correctness.verifiedInDatabase)),
            ("database_checked", .bool(correctness.databaseChecked)),
            ("failures", .integer(correctness.failures)),
            ("errors", .object(errors)),
        ])
    }

    static func target(_ target: TargetCheck) -> ReportJSONValue {
        .object([
            ("label", .string(target.label)),
            ("target", .string(target.target)),
            ("measured", .string(target.measured)),
            ("met", .bool(target.met)),
        ])
    }
}
