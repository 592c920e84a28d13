/// The report as a terminal table: what an operator reads right after a run.
public enum TextReport {
    /// Parameter lines wrap at this width so they stay on one or two lines in a terminal.
    static let parameterWidth = 100

    public static func render(_ report: RunReport) -> String {
        var sections = [header(report)]
        if !report.nodes.isEmpty { sections.append(nodes(report.nodes)) }
        if !report.figures.isEmpty { sections.append(figures(report.figures)) }
        if !report.latencies.isEmpty { sections.append(latencies(report.latencies)) }
        sections.append(correctness(report.correctness))
        if !report.targets.isEmpty { sections.append(targets(report.targets)) }
        if !report.notes.isEmpty { sections.append(notes(report.notes)) }
        return sections.map { $0.joined(separator: "\n") }.joined(separator: "\n\n") + "\n"
    }

    static func header(_ report: RunReport) -> [String] {
        var verdict = "\(report.scenario): \(report.displayVerdict)"
        if !report.passed { verdict += " (\(report.correctness.displayFailureCount))" }
        var lines = [verdict, "  " + report.displayTiming]
        var current = ""
        for pair in report.displayParameters {
            if !current.isEmpty && current.count + 2 + pair.count > parameterWidth {
                lines.append("  " + current)
                current = ""
            }
            current += (current.isEmpty ? "" : "  ") + pair
        }
        if !current.isEmpty { lines.append("  " + current) }
        return lines
    }

    static func nodes(_ nodes: [NodeShare]) -> [String] {
        var table = ReportTextTable([.left, .right])
        table.append(NodeShare.displayHeadings)
        for node in nodes { table.append(node.displayCells) }
        return ["Nodes"] + table.lines()
    }

    static func figures(_ figures: [Figure]) -> [String] {
        var table = ReportTextTable([.left, .right, .left])
        for figure in figures { table.append([figure.label, figure.displayValue, figure.unit]) }
        return ["Figures"] + table.lines()
    }

    static func latencies(_ latencies: [LatencySummary]) -> [String] {
        var table = ReportTextTable([.left] + Array(repeating: .right, count: 6))
        table.append(LatencySummary.displayHeadings)
        for latency in latencies { table.append(latency.displayCells) }
        return ["Latency (ms)"] + table.lines()
    }

    static func correctness(_ correctness: Correctness) -> [String] {
        var table = ReportTextTable([.left, .right, .left])
        for row in correctness.displayRows { table.append([row.label, row.value, row.isFailure ? "<- failure" : ""]) }
        var lines = ["Correctness: \(correctness.displayFailureCount)"] + table.lines()

        let errors = correctness.displayErrors
        lines.append("  error frames (reported, not failures):" + (errors.isEmpty ? " none" : ""))
        var errorTable = ReportTextTable([.left, .right])
        for row in errors { errorTable.append([row.label, row.value]) }
        return lines + errorTable.lines(indent: "    ")
    }

    static func targets(_ targets: [TargetCheck]) -> [String] {
        var table = ReportTextTable([.left, .left, .left, .left])
        table.append(["target", "goal", "measured", "result"])
        for target in targets { table.append([target.label, target.target, target.measured, target.displayVerdict]) }
        return ["Targets"] + table.lines()
    }

    static func notes(_ notes: [String]) -> [String] {
        // Continuation lines of a multi-line note stay indented under its bullet.
        ["Notes"]
            + notes.map {
                "  - " + $0.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n    ")
            }
    }
}
