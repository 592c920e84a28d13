import SwitchboardReaders
import Testing

/// The search indexer and the webhook expander yield to the writer: full
/// speed while the writer keeps up, their share of the time while the writer
/// has commands waiting.
@Suite struct AfterCommitPacingTests {
    let pacing = AfterCommitPacing(idleMilliseconds: 200, busySharePercent: 25)

    @Test func anEmptiedBacklogWaitsTheIdleIntervalWhateverTheWriterDoes() {
        #expect(pacing.wait(more: false, passMicroseconds: 40_000, gatewayBusy: false) == 200)
        #expect(pacing.wait(more: false, passMicroseconds: 40_000, gatewayBusy: true) == 200)
    }

    @Test func moreWorkRunsAtOnceWhileTheWriterKeepsUp() {
        #expect(pacing.wait(more: true, passMicroseconds: 40_000, gatewayBusy: false) == 0)
    }

    @Test func aBusyWriterLeavesTheIndexerItsShareOfTheTime() {
        // 25%: a 40 ms pass, then 120 ms of rest.
        #expect(pacing.wait(more: true, passMicroseconds: 40_000, gatewayBusy: true) == 120)
        let half = AfterCommitPacing(idleMilliseconds: 200, busySharePercent: 50)
        #expect(half.wait(more: true, passMicroseconds: 40_000, gatewayBusy: true) == 40)
        let never = AfterCommitPacing(idleMilliseconds: 200, busySharePercent: 100)
        #expect(never.wait(more: true, passMicroseconds: 40_000, gatewayBusy: true) == 0)
    }
}
