import SwitchboardChat
import Testing

@testable import SwitchboardChatCore

/// `PendingReads` decides when a core's read positions go and which: one
/// statement in flight, at most one per interval, one position per session
/// and reader.
@Suite struct PendingReadsTests {
    private let ken = Participant(id: "op-ken", role: "operator", name: "Ken")
    private let vera = Participant(id: "v-vera", role: "visitor", name: "Vera")

    /// What `next` stored, none when it stored nothing.
    private func entries(_ next: PendingReads.Next) -> [PendingReads.Entry] {
        guard case .store(let entries) = next else { return [] }
        return entries
    }

    private func stored(_ next: PendingReads.Next) -> [String] {
        entries(next).map { "\($0.reader.id):\($0.seq)" }.sorted()
    }

    private func waited(_ next: PendingReads.Next) -> UInt64? {
        guard case .wait(let milliseconds) = next else { return nil }
        return milliseconds
    }

    private func isNothing(_ next: PendingReads.Next) -> Bool {
        guard case .nothing = next else { return false }
        return true
    }

    @Test func oneStatementInFlightAndAtMostOnePerInterval() {
        var reads = PendingReads()
        reads.add(1, ref: nil, sessionID: "s", seq: 1, reader: ken)
        #expect(stored(reads.next(now: 1_000, interval: 20)) == ["op-ken:1"], "a quiet core stores at once")
        reads.add(1, ref: nil, sessionID: "s", seq: 2, reader: ken)
        #expect(isNothing(reads.next(now: 1_001, interval: 20)), "no second statement while one is in flight")
        reads.finishStoring()
        #expect(waited(reads.next(now: 1_005, interval: 20)) == 15, "the rest of the interval")
        #expect(isNothing(reads.next(now: 1_030, interval: 20)), "nothing before the timer fires")
        reads.fireTimer()
        #expect(stored(reads.next(now: 1_019, interval: 20)) == ["op-ken:2"], "the timer's statement goes")
        reads.finishStoring()
        #expect(isNothing(reads.next(now: 2_000, interval: 20)), "nothing waits")
        reads.add(2, ref: "r", sessionID: "s", seq: 3, reader: vera)
        #expect(stored(reads.next(now: 2_000, interval: 20)) == ["v-vera:3"], "long after the last: at once")
    }

    @Test func onePositionPerSessionAndReaderTheHighestWithEveryAskersLatestRef() {
        var reads = PendingReads()
        reads.add(1, ref: "a", sessionID: "s", seq: 4, reader: ken)
        reads.add(1, ref: "b", sessionID: "s", seq: 2, reader: ken)
        reads.add(7, ref: nil, sessionID: "s", seq: 3, reader: ken)
        reads.add(2, ref: "v", sessionID: "s", seq: 1, reader: vera)
        reads.add(2, ref: "w", sessionID: "t", seq: 1, reader: vera)
        let entries = entries(reads.next(now: 0, interval: 0))
        #expect(entries.count == 3)
        let kens = entries.first { $0.position.readerID == "op-ken" }
        #expect(kens?.position.seq == 4 && kens?.position.readerRole == "operator")
        #expect(kens?.askers == [1: "b", 7: nil])
    }

    @Test func aStatementCarriesAtMostTheBatchLimitAndTheRestGoNext() {
        var reads = PendingReads()
        for index in 0...PendingReads.batchLimit {
            reads.add(UInt64(index), ref: nil, sessionID: "s\(index)", seq: 1, reader: ken)
        }
        let first = entries(reads.next(now: 0, interval: 0))
        reads.finishStoring()
        let rest = entries(reads.next(now: 0, interval: 0))
        #expect(first.count == PendingReads.batchLimit && rest.count == 1)
        #expect(Set((first + rest).map(\.position.sessionID)).count == PendingReads.batchLimit + 1)
    }
}
