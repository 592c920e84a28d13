import SwitchboardChat
import Testing

@testable import SwitchboardChatCore

/// The per-join state machine alone: what it decides for each live frame.
@Suite struct SubscriptionTests {
    private func frame(_ seq: Int64?) -> SessionFrame { SubscriptionFixture.frame(seq) }

    private func subscription(_ state: Subscription.State) -> Subscription {
        SubscriptionFixture.subscription(state)
    }

    @Test func liveWritesEachMessageOnceInOrderAndEventsAlways() {
        let live = subscription(.live(lastSeq: 5))
        #expect(live.offer(frame(5), holdLimit: 10) == .skip)
        #expect(live.offer(frame(6), holdLimit: 10) == .write)
        #expect(live.offer(frame(6), holdLimit: 10) == .skip)
        #expect(live.offer(frame(4), holdLimit: 10) == .skip)
        #expect(live.offer(frame(nil), holdLimit: 10) == .write, "typing and read carry no seq")
        #expect(live.offer(frame(7), holdLimit: 10) == .write)
    }

    @Test func replayingHoldsUpToTheLimitThenOverflows() {
        let joining = subscription(.replaying([]))
        #expect(joining.offer(frame(1), holdLimit: 2) == .hold)
        #expect(joining.offer(frame(nil), holdLimit: 2) == .hold)
        #expect(joining.offer(frame(2), holdLimit: 2) == .overflow)
    }

    @Test func goingLiveReleasesWhatTheReplayDidNotHaveInArrivalOrder() {
        let joining = subscription(.replaying([]))
        for seq: Int64? in [3, nil, 4, 5, 5, 6] { _ = joining.offer(frame(seq), holdLimit: 10) }
        let released = joining.goLive(after: 4)
        #expect(released.map(\.seq) == [nil, 5, 6])
        #expect(joining.offer(frame(6), holdLimit: 10) == .skip, "live from the newest released")
        #expect(joining.goLive(after: 10).isEmpty, "going live twice releases nothing")
    }
}
