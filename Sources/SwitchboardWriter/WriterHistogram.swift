/// A fixed-bucket histogram: `counts[i]` holds observations `<= bounds[i]`
/// (and above the previous bound); the last count holds everything above the
/// last bound. Fixed buckets export directly as a Prometheus histogram.
public struct WriterHistogram: Sendable, Equatable {
    public let bounds: [Int]
    public private(set) var counts: [Int]
    public private(set) var sum: Int = 0
    public private(set) var count: Int = 0

    public init(bounds: [Int]) {
        self.bounds = bounds
        counts = Array(repeating: 0, count: bounds.count + 1)
    }

    public mutating func record(_ value: Int) {
        var index = 0
        while index < bounds.count && value > bounds[index] { index += 1 }
        counts[index] += 1
        sum += value
        count += 1
    }

    /// Batch sizes in messages.
    public static let batchSizeBounds = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
    /// Commit latency in microseconds (send to commit), 100 µs to 10 s.
    public static let latencyBounds = [
        100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 1_000_000, 10_000_000,
    ]
}
