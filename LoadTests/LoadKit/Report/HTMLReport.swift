/// The report as one self-contained HTML page: inline CSS and SVG, no script,
/// nothing fetched, so it can be attached to an issue or opened from disk.
public enum HTMLReport {
    public static func render(_ report: RunReport) -> String {
        let verdict = report.displayVerdict
        var body = [
            "<h1>\(html(report.scenario)) <span class=\"badge \(verdict.lowercased())\">\(verdict)</span></h1>",
            "<p class=\"timing\">\(html(report.displayTiming))</p>",
        ]
        if !report.parameters.isEmpty {
            body.append(section("Parameters", table([], report.parameters.map { Row([$0.name, $0.value]) })))
        }
        if !report.nodes.isEmpty {
            let rows = report.nodes.map { Row($0.displayCells, numeric: [1]) }
            body.append(section("Nodes", table(NodeShare.displayHeadings, rows, numeric: [1])))
        }
        if !report.figures.isEmpty {
            let rows = report.figures.map { Row([$0.label, $0.displayValue, $0.unit], numeric: [1]) }
            body.append(section("Figures", table([], rows)))
        }
        if !report.latencies.isEmpty {
            let rows = report.latencies.map { Row($0.displayCells, numeric: Set(1...6)) }
            body.append(section("Latency (ms)", table(LatencySummary.displayHeadings, rows, numeric: Set(1...6))))
        }
        body.append(section("Latency distribution", ReportCharts.latencyDistribution(report.latencies).svg()))
        body.append(section("Throughput", ReportCharts.throughput(report.timeline).svg()))
        body.append(correctness(report.correctness))
        if !report.targets.isEmpty {
            let rows = report.targets.map {
                Row([$0.label, $0.target, $0.measured, $0.displayVerdict], marked: $0.met == false)
            }
            body.append(section("Targets", table(["target", "goal", "measured", "result"], rows)))
        }
        if !report.notes.isEmpty { body.append(notes(report.notes)) }
        return page(title: "\(report.scenario) - \(verdict) - Switchboard load test", body: body)
    }

    /// A whole page: `title`, the reports' style, then `body`'s parts (the drivers' pages use it too).
    static func page(title: String, body: [String]) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>\(html(title))</title>
        <style>\(style)</style>
        </head>
        <body>
        \(body.joined(separator: "\n"))
        </body>
        </html>

        """
    }

    /// One table row; `marked` rows (failures, missed targets) are highlighted.
    struct Row {
        var cells: [String]
        var numeric: Set<Int>
        var marked: Bool

        init(_ cells: [String], numeric: Set<Int> = [], marked: Bool = false) {
            self.cells = cells
            self.numeric = numeric
            self.marked = marked
        }
    }

    static func correctness(_ correctness: Correctness) -> String {
        let rows = correctness.displayRows.map { Row([$0.label, $0.value], numeric: [1], marked: $0.isFailure) }
        let errors = correctness.displayErrors.map { Row([$0.label, $0.value], numeric: [1]) }
        let errorTable = errors.isEmpty ? "<p>none</p>" : table(["code", "frames"], errors, numeric: [1])
        return section(
            "Correctness",
            "<p>\(html(correctness.displayFailureCount))</p>\n" + table([], rows)
                + "\n<h3>Error frames (reported, not failures)</h3>\n" + errorTable)
    }

    static func notes(_ notes: [String]) -> String { list("Notes", notes) }

    /// A section holding a bulleted list of `items`.
    static func list(_ title: String, _ items: [String]) -> String {
        let lines = items.map { "<li>\(html($0))</li>" }
        return section(title, "<ul>\n" + lines.joined(separator: "\n") + "\n</ul>")
    }

    static func section(_ title: String, _ content: String) -> String {
        "<section>\n<h2>\(html(title))</h2>\n\(content)\n</section>"
    }

    static func table(_ headings: [String], _ rows: [Row], numeric: Set<Int> = []) -> String {
        var lines = ["<table>"]
        if !headings.isEmpty {
            let cells = headings.enumerated().map { cell("th", $0.element, numeric: numeric.contains($0.offset)) }
            lines.append("<tr>" + cells.joined() + "</tr>")
        }
        for row in rows {
            let cells = row.cells.enumerated().map { cell("td", $0.element, numeric: row.numeric.contains($0.offset)) }
            lines.append((row.marked ? "<tr class=\"marked\">" : "<tr>") + cells.joined() + "</tr>")
        }
        lines.append("</table>")
        return lines.joined(separator: "\n")
    }

    private static func cell(_ tag: String, _ text: String, numeric: Bool) -> String {
        "<\(tag)\(numeric ? " class=\"num\"" : "")>\(html(text))</\(tag)>"
    }

    private static func html(_ text: String) -> String { ReportEscaping.html(text) }

    static let style = """
        body { font: 14px/1.4 system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
        h1 { font-size: 1.6em; } h2 { font-size: 1.2em; margin-top: 1.6em; } h3 { font-size: 1em; }
        .badge { font-size: 0.7em; padding: 0.15em 0.6em; border-radius: 0.3em; color: #fff; vertical-align: middle; }
        .badge.pass { background: #1a7f37; } .badge.fail { background: #cf222e; }
        .timing { color: #555; }
        table { border-collapse: collapse; }
        th, td { padding: 0.2em 0.8em; border-bottom: 1px solid #ddd; text-align: left; }
        .num { text-align: right; font-variant-numeric: tabular-nums; }
        tr.marked td { color: #cf222e; font-weight: bold; }
        li { white-space: pre-wrap; }
        svg { display: block; }
        """
}
