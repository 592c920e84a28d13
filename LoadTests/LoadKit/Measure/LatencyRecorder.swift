import Histogram

/// A latency distribution in microseconds (HdrHistogram, 3 significant
/// digits), recorded on one shard's thread and merged at the end.
public struct LatencyRecorder: Sendable {
    /// One hour: anything slower is clamped, and shows as the max.
    static let highestMicroseconds: UInt64 = 3_600_000_000
    private var histogram = Histogram<UInt64>(
        lowestDiscernibleValue: 1, highestTrackableValue: highestMicroseconds, numberOfSignificantValueDigits: .three)

    public init() {}

    /// Latencies recorded.
    public var count: UInt64 { histogram.totalCount }

    @inline(__always)
    public mutating func record(nanoseconds: UInt64) {
        let micros = Swift.min(Swift.max(nanoseconds / 1000, 1), Self.highestMicroseconds)
        _ = histogram.record(micros)
    }

    public mutating func merge(_ other: LatencyRecorder) {
        histogram.add(other.histogram)
    }

    public mutating func reset() {
        histogram.reset()
    }

    /// Milliseconds at `percentile` (0...100).
    public func milliseconds(atPercentile percentile: Double) -> Double {
        guard histogram.totalCount > 0 else { return 0 }
        if percentile >= 100 { return Double(histogram.max) / 1000 }
        return Double(histogram.valueAtPercentile(percentile)) / 1000
    }

    static let curvePercentiles: [Double] = [
        0, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999, 100,
    ]

    public func summary(key: String, label: String) -> LatencySummary {
        LatencySummary(
            key: key, label: label, count: histogram.totalCount,
            p50: milliseconds(atPercentile: 50), p90: milliseconds(atPercentile: 90),
            p99: milliseconds(atPercentile: 99), p999: milliseconds(atPercentile: 99.9),
            max: milliseconds(atPercentile: 100),
            curve: histogram.totalCount == 0
                ? []
                : Self.curvePercentiles.map { CurvePoint(percentile: $0, milliseconds: milliseconds(atPercentile: $0)) }
        )
    }
}
