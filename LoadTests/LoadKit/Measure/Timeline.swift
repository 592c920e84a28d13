/// Per-second counters from a start instant, for the throughput chart.
public struct Timeline: Sendable {
    public private(set) var points: [TimelinePoint] = []
    public var start: UInt64

    public init(start: UInt64) {
        self.start = start
    }

    public enum Counter: Sendable { case sent, acked, delivered, connected }

    @inline(__always)
    public mutating func count(_ counter: Counter, at nanoseconds: UInt64, _ amount: Int = 1) {
        guard nanoseconds >= start else { return }
        let second = Int((nanoseconds - start) / 1_000_000_000)
        while points.count <= second { points.append(TimelinePoint(second: points.count)) }
        switch counter {
        case .sent: points[second].sent += amount
        case .acked: points[second].acked += amount
        case .delivered: points[second].delivered += amount
        case .connected: points[second].connected += amount
        }
    }

    /// Adds another shard's counts (same start).
    public mutating func merge(_ other: Timeline) {
        for point in other.points {
            let at = start + UInt64(point.second) * 1_000_000_000
            count(.sent, at: at, point.sent)
            count(.acked, at: at, point.acked)
            count(.delivered, at: at, point.delivered)
            count(.connected, at: at, point.connected)
        }
    }
}
