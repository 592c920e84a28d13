/// Checks one subscriber's view of one session against the protocol's
/// promise: seqs in order, no gaps, no duplicates, while it stays connected
/// and across a rejoin with `since_seq`.
///
/// A seq above the next expected one opens a gap; if a skipped seq turns up
/// later it is a reorder (the gap closes), and a seq already received is a
/// duplicate. Gaps still open at the end are lost deliveries.
public struct SequenceTracker: Sendable {
    /// The highest seq received (or the `since_seq` a join started from).
    public private(set) var highest: Int64
    public private(set) var duplicates = 0
    public private(set) var reorders = 0
    /// Skipped seqs not (yet) received, as ranges: a large gap costs one entry.
    private var missing: [Range<Int64>] = []

    public enum Observation: Equatable, Sendable { case inOrder, gap, duplicate, reorder }

    public init(after since: Int64 = 0) {
        highest = since
    }

    public var gaps: Int { missing.reduce(0) { $0 + $1.count } }

    @discardableResult
    public mutating func observe(_ seq: Int64) -> Observation {
        if seq == highest + 1 {
            highest = seq
            return .inOrder
        }
        if seq > highest + 1 {
            missing.append((highest + 1)..<seq)
            highest = seq
            return .gap
        }
        if let index = missing.firstIndex(where: { $0.contains(seq) }) {
            let range = missing.remove(at: index)
            if range.lowerBound < seq { missing.append(range.lowerBound..<seq) }
            if seq + 1 < range.upperBound { missing.append((seq + 1)..<range.upperBound) }
            reorders += 1
            return .reorder
        }
        duplicates += 1
        return .duplicate
    }

    /// Declares that the session reached `last`: seqs up to it that never
    /// arrived are gaps (a subscriber that silently stopped receiving).
    public mutating func expectThrough(_ last: Int64) {
        if last > highest {
            missing.append((highest + 1)..<(last + 1))
            highest = last
        }
    }
}
