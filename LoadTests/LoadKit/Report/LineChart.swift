/// An SVG line chart: axes with labelled ticks, grid, one polyline per series
/// and a legend. Knows nothing about latencies or timelines; see `ReportCharts`.
struct ReportLineChart {
    struct Series {
        var name: String
        var points: [(x: Double, y: Double)]
    }

    struct Axis {
        var title: String
        var ticks: [(value: Double, label: String)]
        /// The axis spans its first to its last tick.
        var lower: Double { ticks.first?.value ?? 0 }
        var upper: Double { ticks.last?.value ?? 1 }
    }

    /// A labelled instant on the x axis (a fault in a chaos run's timeline).
    struct Marker {
        var x: Double
        var label: String
    }

    var description: String
    var x: Axis
    var y: Axis
    var series: [Series]
    /// Drawn as dashed vertical lines across the plot, each labelled at its top.
    var markers: [Marker] = []

    static let width = 720.0
    static let height = 320.0
    static let plotLeft = 64.0
    /// Room on the right for the last x label ("99.999%") to be centred on its tick.
    static let plotRight = width - 36
    static let plotTop = 40.0
    static let plotBottom = height - 48
    /// Colour-blind-friendly hues, in the order series are given.
    static let palette = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9"]
    static let gridColor = "#e4e4e4"
    static let mutedColor = "#777"
    static let markerColor = "#cf222e"

    func svg() -> String {
        // Presentation attributes rather than page CSS, so a chart copied out of the page still reads.
        var parts = [
            Self.open(
                "svg",
                [
                    ("xmlns", "http://www.w3.org/2000/svg"), ("viewBox", "0 0 720 320"), ("width", "720"),
                    ("height", "320"), ("role", "img"), ("aria-label", description), ("font-family", "sans-serif"),
                    ("font-size", "11"), ("fill", "#333"),
                ]),
            Self.element("title", [], text: description),
        ]
        let drawable = series.map { line in line.points.filter { $0.x.isFinite && $0.y.isFinite } }
        if drawable.allSatisfy(\.isEmpty) {
            let middle = [("x", "360"), ("y", "160"), ("text-anchor", "middle")]
            parts.append(
                Self.element("text", middle + [("font-size", "16"), ("fill", Self.mutedColor)], text: "no data"))
        } else {
            parts += axes()
            for (index, points) in drawable.enumerated() where !points.isEmpty {
                let coordinates = points.map { Self.number(position(x: $0.x)) + "," + Self.number(position(y: $0.y)) }
                parts.append(
                    Self.element(
                        "polyline",
                        [
                            ("fill", "none"), ("stroke", color(index)), ("stroke-width", "1.5"),
                            ("points", coordinates.joined(separator: " ")),
                        ]))
            }
            parts += markerLines()
            parts += legend()
        }
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    private func axes() -> [String] {
        var parts: [String] = []
        let (left, right, top, bottom) = (Self.plotLeft, Self.plotRight, Self.plotTop, Self.plotBottom)
        for tick in x.ticks {
            let at = position(x: tick.value)
            parts.append(Self.line(from: (at, top), to: (at, bottom), color: Self.gridColor))
            parts.append(Self.label(tick.label, at: (at, bottom + 16), anchor: "middle"))
        }
        for tick in y.ticks {
            let at = position(y: tick.value)
            parts.append(Self.line(from: (left, at), to: (right, at), color: Self.gridColor))
            parts.append(Self.label(tick.label, at: (left - 6, at + 4), anchor: "end"))
        }
        let frame = [("x", left), ("y", top), ("width", right - left), ("height", bottom - top)]
        parts.append(
            Self.element(
                "rect", frame.map { ($0.0, Self.number($0.1)) } + [("fill", "none"), ("stroke", Self.mutedColor)]))
        parts.append(Self.label(x.title, at: ((left + right) / 2, Self.height - 8), anchor: "middle"))
        let middle = Self.number((top + bottom) / 2)
        parts.append(
            Self.element(
                "text", [("transform", "translate(16 \(middle)) rotate(-90)"), ("text-anchor", "middle")], text: y.title
            ))
        return parts
    }

    private func markerLines() -> [String] {
        markers.filter { $0.x.isFinite && $0.x >= x.lower && $0.x <= x.upper }.flatMap { marker in
            let at = position(x: marker.x)
            let line = Self.line(from: (at, Self.plotTop), to: (at, Self.plotBottom), color: Self.markerColor)
            return [
                String(line.dropLast(2)) + " stroke-dasharray=\"4 3\"/>",
                Self.element(
                    "text",
                    [
                        ("x", Self.number(at + 3)), ("y", Self.number(Self.plotTop + 12)), ("text-anchor", "start"),
                        ("fill", Self.markerColor),
                    ], text: marker.label),
            ]
        }
    }

    private func legend() -> [String] {
        var parts: [String] = []
        var at = Self.plotLeft
        for (index, line) in series.enumerated() {
            parts.append(Self.line(from: (at, 20), to: (at + 18, 20), color: color(index), width: 3))
            parts.append(Self.label(line.name, at: (at + 24, 24), anchor: "start"))
            // A rough width per character is enough: labels are short and the font is small.
            at += 24 + Double(line.name.count) * 6.5 + 20
        }
        return parts
    }

    private func color(_ index: Int) -> String { Self.palette[index % Self.palette.count] }

    /// Values outside an axis are pinned to its edge rather than drawn off the plot.
    private func position(x value: Double) -> Double {
        Self.plotLeft + Self.fraction(value, x) * (Self.plotRight - Self.plotLeft)
    }

    private func position(y value: Double) -> Double {
        Self.plotBottom - Self.fraction(value, y) * (Self.plotBottom - Self.plotTop)
    }

    private static func fraction(_ value: Double, _ axis: Axis) -> Double {
        let span = axis.upper - axis.lower
        guard span > 0 else { return 0 }
        return Swift.min(Swift.max((value - axis.lower) / span, 0), 1)
    }

    private static func line(
        from start: (Double, Double), to end: (Double, Double), color: String, width: Double = 1
    ) -> String {
        let ends = [("x1", start.0), ("y1", start.1), ("x2", end.0), ("y2", end.1), ("stroke-width", width)]
        return element("line", ends.map { ($0.0, number($0.1)) } + [("stroke", color)])
    }

    private static func label(_ text: String, at point: (Double, Double), anchor: String) -> String {
        element("text", [("x", number(point.0)), ("y", number(point.1)), ("text-anchor", anchor)], text: text)
    }

    /// `<name a="v"...>text</name>`, or self-closing without text; everything escaped.
    private static func element(_ name: String, _ attributes: [(String, String)], text: String? = nil) -> String {
        guard let text else { return String(open(name, attributes).dropLast()) + "/>" }
        return open(name, attributes) + ReportEscaping.html(text) + "</\(name)>"
    }

    private static func open(_ name: String, _ attributes: [(String, String)]) -> String {
        "<" + name + attributes.map { " \($0.0)=\"\(ReportEscaping.html($0.1))\"" }.joined() + ">"
    }

    private static func number(_ value: Double) -> String { ReportNumberFormat.trimmed(value, maxDecimals: 1) }
}
