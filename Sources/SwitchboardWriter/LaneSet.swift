/// A set of the writer's lanes (at most 64, as `writer.connections` allows),
/// one bit each: what `LanePlan` decides and the batches on the wire hold
/// are sets of home lanes, and the writer's thread builds them on every
/// decision, so they live in a word rather than an array allocated each
/// time. Iterates in ascending lane order.
struct LaneSet: Equatable, Sequence, ExpressibleByArrayLiteral {
    static let capacity = 64

    private var bits: UInt64

    init() { bits = 0 }

    init(arrayLiteral lanes: Int...) {
        self.init()
        for lane in lanes { insert(lane) }
    }

    var isEmpty: Bool { bits == 0 }

    func contains(_ lane: Int) -> Bool { bits & Self.bit(lane) != 0 }

    mutating func insert(_ lane: Int) { bits |= Self.bit(lane) }

    mutating func formUnion(_ other: LaneSet) { bits |= other.bits }

    func removing(_ lane: Int) -> LaneSet {
        var copy = self
        copy.bits &= ~Self.bit(lane)
        return copy
    }

    func makeIterator() -> Iterator { Iterator(remaining: bits) }

    struct Iterator: IteratorProtocol {
        var remaining: UInt64

        mutating func next() -> Int? {
            guard remaining != 0 else { return nil }
            let lane = remaining.trailingZeroBitCount
            remaining &= remaining - 1
            return lane
        }
    }

    private static func bit(_ lane: Int) -> UInt64 {
        precondition(lane >= 0 && lane < capacity, "lane \(lane) is outside 0..<\(capacity)")
        return 1 << UInt64(lane)
    }
}
