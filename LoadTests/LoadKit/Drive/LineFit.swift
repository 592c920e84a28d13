/// A straight line through a series: whether a figure sampled over a run
/// (RSS, descriptors, a p99) grows, and how fast.
public enum LineFit {
    /// The Theil-Sen slope: the median of the slopes between every two points
    /// whose y is known (and whose x differ); 0 with fewer than three points.
    /// A steady trend gives the same slope as least squares would, but a few
    /// isolated spikes do not move it: a p99 sampled over 2-s windows jumps
    /// to 40-80 ms when one commit waits on the disk, and one such window
    /// near the end of a one-minute run tilts a least-squares line past its
    /// bound with nothing growing.
    public static func slope(_ points: [(x: Double, y: Double?)]) -> Double {
        let known = knownPoints(points)
        guard known.count >= 3 else { return 0 }
        var slopes: [Double] = []
        slopes.reserveCapacity(known.count * (known.count - 1) / 2)
        for first in known.indices {
            for second in known.indices where second > first && known[second].x != known[first].x {
                slopes.append((known[second].y - known[first].y) / (known[second].x - known[first].x))
            }
        }
        guard !slopes.isEmpty else { return 0 }
        slopes.sort()
        let middle = slopes.count / 2
        return slopes.count % 2 == 1 ? slopes[middle] : (slopes[middle - 1] + slopes[middle]) / 2
    }

    private static func knownPoints(_ points: [(x: Double, y: Double?)]) -> [(x: Double, y: Double)] {
        points.compactMap { point in point.y.map { (x: point.x, y: $0) } }
    }
}
