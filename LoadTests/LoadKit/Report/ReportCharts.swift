#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The two charts of the HTML report, as `ReportLineChart`s.
enum ReportCharts {
    /// The percentile axis always reaches 99.99%, and stops at 99.9999% however deep the curve goes.
    static let shortestPercentileAxis = 4
    static let longestPercentileAxis = 6
    /// Space above the highest value, so the peak is not drawn on the frame.
    static let headroom = 1.05

    /// Latency against percentile on the HdrHistogram log scale, where each
    /// step right is one more nine (90%, 99%, 99.9%...), so the tail gets room.
    static func latencyDistribution(_ latencies: [LatencySummary]) -> ReportLineChart {
        let curves = latencies.map { latency in
            latency.curve.filter { $0.percentile.isFinite && $0.milliseconds.isFinite }
        }
        let deepest = curves.joined().map { nines($0.percentile) }.filter(\.isFinite).max() ?? 0
        let lastTick = min(max(Int(deepest.rounded(.up)), shortestPercentileAxis), longestPercentileAxis)
        let slowest = (curves.joined().map(\.milliseconds).max() ?? 0) * headroom

        let series = zip(latencies, curves).map { latency, curve in
            // p=100 (and anything past the axis) sits on the last tick.
            ReportLineChart.Series(
                name: latency.label,
                points: curve.map { (x: min(nines($0.percentile), Double(lastTick)), y: $0.milliseconds) })
        }
        return ReportLineChart(
            description: "Latency by percentile",
            x: ReportLineChart.Axis(
                title: "percentile", ticks: (0...lastTick).map { (value: Double($0), label: percentileLabel($0)) }),
            y: ReportLineChart.Axis(title: "milliseconds", ticks: labelled(ReportChartScale.ticks(upTo: slowest))),
            series: series)
    }

    /// Per-second counts over the run; `connected` only when the scenario opened connections during traffic.
    static func throughput(_ timeline: [TimelinePoint]) -> ReportLineChart {
        let points = timeline.sorted { $0.second < $1.second }
        var columns: [(String, KeyPath<TimelinePoint, Int>)] = [
            ("sent", \.sent), ("acked", \.acked), ("delivered", \.delivered),
        ]
        if points.contains(where: { $0.connected != 0 }) { columns.append(("connected", \.connected)) }

        let series = columns.map { name, column in
            ReportLineChart.Series(
                name: name, points: points.map { (x: Double($0.second), y: Double($0[keyPath: column])) })
        }
        let lastSecond = Double(points.last?.second ?? 0)
        let busiest = (series.flatMap(\.points).map(\.y).max() ?? 0) * headroom
        return ReportLineChart(
            description: "Throughput per second",
            x: ReportLineChart.Axis(
                title: "second of the run", ticks: labelled(ReportChartScale.ticks(upTo: lastSecond, minimumStep: 1))),
            y: ReportLineChart.Axis(
                title: "per second", ticks: labelled(ReportChartScale.ticks(upTo: busiest, minimumStep: 1))),
            series: timeline.isEmpty ? [] : series)
    }

    /// log10(1 / (1 - p/100)): 0 at 0%, 1 at 90%, 2 at 99%; infinite at 100%.
    static func nines(_ percentile: Double) -> Double {
        let remaining = 1 - min(max(percentile, 0), 100) / 100
        return remaining > 0 ? -log10(remaining) : .infinity
    }

    /// "0%", "90%", "99%", "99.9%"... for tick `nines`.
    static func percentileLabel(_ nines: Int) -> String {
        switch nines {
        case 0: return "0%"
        case 1: return "90%"
        default: return "99" + (nines > 2 ? "." + String(repeating: "9", count: nines - 2) : "") + "%"
        }
    }

    private static func labelled(_ ticks: [Double]) -> [(value: Double, label: String)] {
        ticks.map { (value: $0, label: ReportNumberFormat.compact($0)) }
    }
}
