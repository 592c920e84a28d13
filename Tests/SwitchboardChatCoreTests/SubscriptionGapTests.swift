import SwitchboardChat
import Testing

@testable import SwitchboardChatCore

/// A subscription that sees a session's seq jump holds what follows the gap
/// until the missing messages arrive, live or read from the database.
@Suite struct SubscriptionGapTests {
    private func frame(_ seq: Int64?) -> SessionFrame { SubscriptionFixture.frame(seq) }

    private func subscription(_ state: Subscription.State) -> Subscription {
        SubscriptionFixture.subscription(state)
    }

    @Test func aJumpOpensAGapThatTheMissingMessageCloses() {
        let live = subscription(.live(lastSeq: 3))
        #expect(live.offer(frame(5), holdLimit: 10) == .gap)
        #expect(live.isRepairing)
        #expect(live.offer(frame(7), holdLimit: 10) == .hold)
        #expect(live.offer(frame(6), holdLimit: 10) == .hold)
        #expect(live.offer(frame(6), holdLimit: 10) == .skip, "held once only")
        #expect(live.offer(frame(nil), holdLimit: 10) == .write, "events do not wait for messages")
        #expect(live.offer(frame(4), holdLimit: 10) == .write)
        #expect(live.released().map(\.seq) == [5, 6, 7])
        #expect(!live.isRepairing && live.lastSeq == 7)
        #expect(live.offer(frame(8), holdLimit: 10) == .write)
    }

    @Test func settlingThroughADeletedMessageReleasesWhatFollows() {
        let live = subscription(.live(lastSeq: 3))
        #expect(live.offer(frame(6), holdLimit: 10) == .gap)
        // The database has 4; 5 was deleted.
        #expect(live.offer(frame(4), holdLimit: 10) == .write)
        #expect(live.released().isEmpty && live.isRepairing)
        #expect(live.settle(through: 5).map(\.seq) == [6])
        #expect(!live.isRepairing && live.lastSeq == 6)
    }

    @Test func settlingShortOfTheHeldKeepsRepairing() {
        let live = subscription(.live(lastSeq: 1))
        #expect(live.offer(frame(9), holdLimit: 10) == .gap)
        #expect(live.settle(through: 4).isEmpty)
        #expect(live.isRepairing && live.lastSeq == 4)
    }

    @Test func tooMuchHeldBehindAGapOverflows() {
        let live = subscription(.live(lastSeq: 1))
        #expect(live.offer(frame(3), holdLimit: 2) == .gap)
        #expect(live.offer(frame(4), holdLimit: 2) == .hold)
        #expect(live.offer(frame(5), holdLimit: 2) == .overflow)
    }

    @Test func goingLiveOverAGapLeavesTheSubscriptionRepairing() {
        let joining = subscription(.replaying([]))
        _ = joining.offer(frame(4), holdLimit: 10)
        _ = joining.offer(frame(6), holdLimit: 10)
        #expect(joining.goLive(after: 3).map(\.seq) == [4])
        #expect(joining.isRepairing && joining.lastSeq == 4)
        #expect(joining.offer(frame(5), holdLimit: 10) == .write)
        #expect(joining.released().map(\.seq) == [6])
    }
}
