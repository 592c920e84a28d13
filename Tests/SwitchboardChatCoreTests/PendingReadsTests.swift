import SwitchboardChat
import Testing

@testable import SwitchboardChatCore

/// `PendingReads` decides when a core's read positions go and which: one
/// statement in flight, at most one per interval, one position per session
/// and reader.
@Suite struct PendingReadsTests {
    private let ken = Participant(id: "op-ken", role: "operator", name: "Ken")
    private let vera = Participant(id: "v-vera", role: "visitor", name: "Vera")

    private func stored(_ next: PendingReads.Next) -> [String]? {
        guard case .store(let entries) = next else { return nil }
        return entries.map { "\($0.position.readerID):\($0.position.seq)" }.sorted()
    }

    @Test func oneStatementInFlightAndAtMostOnePerInterval() {
        var reads = PendingReads()
        reads.add(1, ref: nil, sessionID: "s", seq: 1, reader: ken)
        #expect(stored(reads.next(now: 1_000, interval: 20)) == ["op-ken:1"], "a quiet core stores at once")
        reads.add(1, ref: nil, sessionID: "s", seq: 2, reader: ken)
        guard case .nothing = reads.next(now: 1_001, interval: 20) else {
            Issue.record("a second statement while one is in flight")
            return
        }
        reads.finishStoring()
        guard case .wait(let milliseconds) = reads.next(now: 1_005, interval: 20) else {
            Issue.record("no wait for the interval")
            return
        }
        #expect(milliseconds == 15)
        guard case .nothing = reads.next(now: 1_030, interval: 20) else {
            Issue.record("a statement before the timer fired")
            return
        }
        reads.fireTimer()
        #expect(stored(reads.next(now: 1_019, interval: 20)) == ["op-ken:2"], "the timer's statement goes")
        reads.finishStoring()
        guard case .nothing = reads.next(now: 2_000, interval: 20) else {
            Issue.record("a statement with nothing waiting")
            return
        }
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
        guard case .store(let entries) = reads.next(now: 0, interval: 0) else {
            Issue.record("nothing stored")
            return
        }
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
        guard case .store(let first) = reads.next(now: 0, interval: 0) else {
            Issue.record("nothing stored")
            return
        }
        reads.finishStoring()
        guard case .store(let rest) = reads.next(now: 0, interval: 0) else {
            Issue.record("the rest not stored")
            return
        }
        #expect(first.count == PendingReads.batchLimit && rest.count == 1)
        #expect(Set((first + rest).map(\.position.sessionID)).count == PendingReads.batchLimit + 1)
    }
}
