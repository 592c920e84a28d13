/// Checks one subscriber's view of one session against the protocol's
/// promise: seqs in order, no gaps, no duplicates, while it stays connected
/// and across a rejoin with `since_seq`.
///
/// A seq above the next expected one opens a gap; if a skipped seq turns up
/// later it is a reorder (the gap closes), and a seq already received is a
/// duplicate. Gaps still open at the end are lost deliveries.
///
/// One exception, for rejoins only: a replay that brings again a seq the
/// subscriber already had, at or below the `since_seq` it joined with, is
/// no new delivery and no error (`replayed`): a client de-duplicates by seq,
/// and nothing at or below `since_seq` can come live on the new connection.
/// Each such seq is excused once per rejoin, in ascending order; the same
/// one twice, or any seq above `since_seq` twice, is still a duplicate.
public struct SequenceTracker: Sendable {
    /// The highest seq received (or the `since_seq` a join started from).
    public private(set) var highest: Int64
    public private(set) var duplicates = 0
    public private(set) var reorders = 0
    /// Seqs a rejoin's replay brought again that were already received.
    public private(set) var replayedAgain = 0
    /// Skipped seqs not (yet) received, as ranges: a large gap costs one entry.
    private var missing: [Range<Int64>] = []
    /// The `since_seq` of the latest rejoin (0: none yet).
    private var replayFloor: Int64 = 0
    /// The last seq at or below `replayFloor` received since that rejoin.
    private var replayCursor: Int64 = 0

    public enum Observation: Equatable, Sendable { case inOrder, gap, duplicate, reorder, replayed }

    public init(after since: Int64 = 0) {
        highest = since
    }

    public var gaps: Int { missing.reduce(0) { $0 + $1.count } }

    /// Starts a rejoin on a new connection; returns the `since_seq` to join
    /// with: the highest seq received.
    public mutating func rejoin() -> Int64 {
        replayFloor = highest
        replayCursor = 0
        return highest
    }

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
        let replay = seq <= replayFloor && seq > replayCursor
        if replay { replayCursor = seq }
        // A seq never received arrives late, replayed or not: the live stream reordered or lost it.
        if let index = missing.firstIndex(where: { $0.contains(seq) }) {
            let range = missing.remove(at: index)
            if range.lowerBound < seq { missing.append(range.lowerBound..<seq) }
            if seq + 1 < range.upperBound { missing.append((seq + 1)..<range.upperBound) }
            reorders += 1
            return .reorder
        }
        if replay {
            replayedAgain += 1
            return .replayed
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
