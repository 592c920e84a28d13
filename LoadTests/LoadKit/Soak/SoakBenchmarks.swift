/// A long soak in docs/benchmarks.md ("Soak"): what ran, each series' course
/// and slope, and the four charts in docs/images/soak.svg.
public enum SoakBenchmarks {
    public static func write(_ result: SoakResult) throws(TextFile.Failure) {
        try TextFile.write(BenchmarksDoc.root + "/docs/images/soak.svg", svg(result.samples))
        try BenchmarksDoc.replaceSection("soak", with: section(result))
    }

    /// The section's text (the heading's date and machine as given).
    public static func section(
        _ result: SoakResult, date: String = BenchmarksDoc.utcMinute(), machine: String = BenchmarksDoc.machine()
    ) -> String {
        let options = result.options
        let traffic = result.traffic
        let kept = SoakVerdict.measured(result.samples)
        let acked = traffic.rounds.reduce(0) { $0 + Int($1.acked) }
        let verified = traffic.rounds.reduce(0) { $0 + (PythonFormat.int($1.correctness["verified_in_database"]) ?? 0) }
        let failures = traffic.rounds.count { $0.exit != 0 }
        var lines =
            BenchmarksDoc.heading(
                "Soak: \(minutesText(options.minutes)) minutes (scripts/soak)", date: date, machine: machine)
            + [""]
        lines += [
            "Command: `scripts/soak \(minutesText(options.minutes))` (started \(result.started)). A release gateway (two "
                + "event loops) on a private durable PostgreSQL; all at once for the whole run: the harness's "
                + "`conversations` scenario in back-to-back rounds of \(options.roundSeconds) s (\(options.sessions) "
                + "sessions of a visitor and two operators, \(options.rate) msg/s; every round connects, joins, sends "
                + "and disconnects), churn clients (connect, join, typing, read, leave, close, over and over) and HTTP "
                + "API calls (inbox, history, PATCH). Sampled every \(options.sampleSeconds) s; a line is fitted to "
                + "each series after the first quarter of the run.",
            "",
            "Traffic: \(traffic.rounds.count) harness rounds (\(failures) with a correctness failure), "
                + "\(PythonFormat.grouped(acked)) messages acked, \(PythonFormat.grouped(verified)) of them checked in "
                + "the database; \(PythonFormat.grouped(traffic.churnCycles)) churn cycles (\(traffic.churnErrors) "
                + "errors); \(PythonFormat.grouped(traffic.apiCalls)) API calls (\(traffic.apiErrors) errors).",
            "",
            "| series | after warm-up | at the end | min / max (after warm-up) | fitted slope per minute | bound | |",
            "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
        ]
        func one(_ value: Double) -> String { PythonFormat.fixed(value, 1, grouping: true) }
        for trend in result.trends {
            let values = kept.compactMap { $0.value(trend.key) }
            guard let first = values.first, let last = values.last, let low = values.min(), let high = values.max()
            else { continue }
            lines.append(
                "| \(trend.label) | \(one(first)) | \(one(last)) | \(one(low)) / \(one(high)) | "
                    + "\(PythonFormat.fixed(trend.slopePerMinute, 3, grouping: true)) | "
                    + "\(PythonFormat.fixed(trend.boundPerMinute, 3, grouping: true)) | "
                    + "\(trend.judged ? (trend.grows ? "**grows**" : "flat") : "not judged (host steal)") |")
        }
        lines += [
            "", "Verdict: \(result.passed ? "passed" : "**FAILED**").", "",
            "![The soak's four series over the run](images/soak.svg)", "",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The four charts stacked in one SVG.
    public static func svg(_ samples: [SoakSample]) -> String {
        let height = Int(ReportLineChart.height)
        let charts = charts(samples).enumerated().map { index, chart in
            "<svg x=\"0\" y=\"\(index * height)\" " + chart.svg().dropFirst("<svg ".count)
        }
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(ReportLineChart.width))\" "
            + "height=\"\(height * charts.count)\" font-family=\"sans-serif\">\n" + charts.joined(separator: "\n")
            + "\n</svg>\n"
    }

    /// One line chart per series, over the minutes of the run.
    static func charts(_ samples: [SoakSample]) -> [ReportLineChart] {
        SoakVerdict.series.map { key, label in
            let points = samples.compactMap { sample in sample.value(key).map { (x: sample.minutes, y: $0) } }
            let lastMinute = points.map(\.x).max() ?? 0
            let highest = (points.map(\.y).max() ?? 0) * ReportCharts.headroom
            return ReportLineChart(
                description: "\(label) over the run",
                x: ReportLineChart.Axis(
                    title: "minutes into the run", ticks: labelled(ReportChartScale.ticks(upTo: lastMinute))),
                y: ReportLineChart.Axis(title: label, ticks: labelled(ReportChartScale.ticks(upTo: highest))),
                series: [ReportLineChart.Series(name: label, points: points)])
        }
    }

    private static func labelled(_ ticks: [Double]) -> [(value: Double, label: String)] {
        ticks.map { (value: $0, label: ReportNumberFormat.compact($0)) }
    }

    /// `f"{minutes:g}"` for the minutes a run is given: 30, 1.5.
    static func minutesText(_ minutes: Double) -> String {
        minutes == minutes.rounded() && abs(minutes) < 1e6 ? String(Int(minutes)) : PythonFormat.repr(minutes)
    }
}
