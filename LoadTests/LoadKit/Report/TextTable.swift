/// Plain-ASCII columns for the terminal report: every cell padded to its
/// column's widest, numbers right-aligned so their digits line up.
struct ReportTextTable {
    enum Alignment { case left, right }

    var alignments: [Alignment]
    var rows: [[String]] = []

    init(_ alignments: [Alignment]) {
        self.alignments = alignments
    }

    mutating func append(_ cells: [String]) {
        rows.append(cells)
    }

    /// One line per row, each starting with `indent`, columns two spaces apart.
    func lines(indent: String = "  ") -> [String] {
        var widths = [Int](repeating: 0, count: alignments.count)
        for row in rows {
            for (column, cell) in row.prefix(widths.count).enumerated() {
                widths[column] = Swift.max(widths[column], cell.count)
            }
        }
        return rows.map { row in
            var line = indent
            for (column, cell) in row.prefix(widths.count).enumerated() {
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                if column > 0 { line += "  " }
                line += alignments[column] == .right ? padding + cell : cell + padding
            }
            // Left-aligned last columns would otherwise leave trailing blanks.
            while line.last == " " { line.removeLast() }
            return line
        }
    }
}
