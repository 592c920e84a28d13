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

    @Test func aPassThatFoundWorkKeepsTheNextFromStartingSoonerThanTheInterval() {
        let paced = AfterCommitPacing(idleMilliseconds: 1000, busySharePercent: 5, passIntervalMilliseconds: 50)
        // A pass of 10 ms: 40 ms more before a commit's wake-up may start the next.
        #expect(paced.rest(found: true, more: false, passMicroseconds: 10_000) == 40)
        // A pass that took the whole interval or longer: the next may start at once.
        #expect(paced.rest(found: true, more: false, passMicroseconds: 50_000) == 0)
        #expect(paced.rest(found: true, more: false, passMicroseconds: 80_000) == 0)
    }

    @Test func aQuietLookOrACatchUpNeverRests() {
        let paced = AfterCommitPacing(idleMilliseconds: 1000, busySharePercent: 5, passIntervalMilliseconds: 50)
        // An idle look found nothing: the next commit's wake-up starts a pass at once.
        #expect(paced.rest(found: false, more: false, passMicroseconds: 1_000) == 0)
        // Work left: the next pass follows at once (or after the busy share, as `wait` says).
        #expect(paced.rest(found: true, more: true, passMicroseconds: 1_000) == 0)
        // No interval (the search indexer's pacing): never.
        #expect(pacing.rest(found: true, more: false, passMicroseconds: 1_000) == 0)
    }

    @Test func theRestNeverOutlastsTheIdleWait() {
        let paced = AfterCommitPacing(idleMilliseconds: 30, busySharePercent: 5, passIntervalMilliseconds: 50)
        #expect(paced.rest(found: true, more: false, passMicroseconds: 0) == 30)
    }
}
