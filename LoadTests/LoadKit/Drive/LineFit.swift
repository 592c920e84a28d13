/// A straight line through a series by least squares: whether a figure
/// sampled over a run (RSS, descriptors) grows, and how fast.
public enum LineFit {
    /// The slope of the points whose y is known; 0 with fewer than three of
    /// them, or when every x is the same.
    public static func slope(_ points: [(x: Double, y: Double?)]) -> Double {
        let known = points.compactMap { point in point.y.map { (x: point.x, y: $0) } }
        guard known.count >= 3 else { return 0 }
        let count = Double(known.count)
        let meanX = known.reduce(0) { $0 + $1.x } / count
        let meanY = known.reduce(0) { $0 + $1.y } / count
        let variance = known.reduce(0) { $0 + ($1.x - meanX) * ($1.x - meanX) }
        guard variance != 0 else { return 0 }
        return known.reduce(0) { $0 + ($1.x - meanX) * ($1.y - meanY) } / variance
    }
}
