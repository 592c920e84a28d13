import SwitchboardReaders
import Testing

/// The search indexer yields to the writer: full speed while the writer
/// keeps up, its share of the time while the writer has commands waiting.
@Suite struct SearchIndexPacingTests {
    let pacing = SearchIndexPacing(idleMilliseconds: 200, busySharePercent: 25)
    let more = SearchIndexPass(ranges: 3, indexed: 2_000, more: true)
    let drained = SearchIndexPass(ranges: 1, indexed: 12, more: false)

    @Test func anEmptiedBacklogWaitsTheIdleIntervalWhateverTheWriterDoes() {
        #expect(pacing.wait(after: drained, passMicroseconds: 40_000, writerBusy: false) == 200)
        #expect(pacing.wait(after: drained, passMicroseconds: 40_000, writerBusy: true) == 200)
    }

    @Test func moreWorkRunsAtOnceWhileTheWriterKeepsUp() {
        #expect(pacing.wait(after: more, passMicroseconds: 40_000, writerBusy: false) == 0)
    }

    @Test func aBusyWriterLeavesTheIndexerItsShareOfTheTime() {
        // 25%: a 40 ms pass, then 120 ms of rest.
        #expect(pacing.wait(after: more, passMicroseconds: 40_000, writerBusy: true) == 120)
        let half = SearchIndexPacing(idleMilliseconds: 200, busySharePercent: 50)
        #expect(half.wait(after: more, passMicroseconds: 40_000, writerBusy: true) == 40)
        let never = SearchIndexPacing(idleMilliseconds: 200, busySharePercent: 100)
        #expect(never.wait(after: more, passMicroseconds: 40_000, writerBusy: true) == 0)
    }
}
