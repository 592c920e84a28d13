/// The number formats of the benchmark sections in docs/benchmarks.md
/// ("Latency", "Abuse", "Clusters") beyond `PythonFormat`'s: signed whole
/// percentages and figures, and ranges over repeats ("1.2-3.4").
enum BenchFormat {
    /// `f"{value:+.0%}"`: a change as a signed whole percentage: +12%, -3%, +0%.
    static func percent(_ value: Double) -> String {
        signed(value * 100, 0) + "%"
    }

    /// `f"{value:+.{decimals}f}"`: the sign always shown: +1.5, -0.3, -0.0.
    static func signed(_ value: Double, _ decimals: Int) -> String {
        let text = PythonFormat.fixed(value, decimals)
        return text.hasPrefix("-") ? text : "+" + text
    }

    /// The range of `values` over a shape's repeats, nil ones left out: one
    /// figure when they agree, "low-high" otherwise, `empty` when none is left.
    /// With `byText` two values agree when they print alike, else when equal.
    static func spread(
        _ values: [Double?], decimals: Int = 1, grouping: Bool = true, empty: String = "n/a", byText: Bool = false
    ) -> String {
        let present = values.compactMap { $0 }
        guard let low = present.min(), let high = present.max() else { return empty }
        let lowText = PythonFormat.fixed(low, decimals, grouping: grouping)
        let highText = PythonFormat.fixed(high, decimals, grouping: grouping)
        let same = byText ? lowText == highText : low == high
        return same ? lowText : lowText + "-" + highText
    }
}
