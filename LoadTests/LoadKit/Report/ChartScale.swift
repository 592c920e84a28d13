/// Axis ticks at round numbers (1, 2 or 5 times a power of ten) from zero to
/// just past the data, so a reader can take values off a chart at a glance.
enum ReportChartScale {
    /// About `count` evenly spaced ticks covering `0...maximum`, never closer than `minimumStep`.
    static func ticks(upTo maximum: Double, about count: Int = 5, minimumStep: Double = 0) -> [Double] {
        // An empty or all-zero series still needs a drawable axis.
        let top = maximum.isFinite && maximum > 0.001 ? maximum : Swift.max(1, minimumStep)
        let rough = top / Double(Swift.max(count, 1))
        var magnitude = 1.0
        while magnitude * 10 <= rough { magnitude *= 10 }
        while magnitude > rough { magnitude /= 10 }
        let normalized = rough / magnitude
        let multiple: Double = normalized <= 1 ? 1 : normalized <= 2 ? 2 : normalized <= 5 ? 5 : 10
        let step = Swift.max(multiple * magnitude, minimumStep)
        // The small allowance keeps float noise from adding an empty tick past the data.
        let steps = Swift.max(Int((top / step - 1e-9).rounded(.up)), 1)
        return (0...steps).map { Double($0) * step }
    }
}
