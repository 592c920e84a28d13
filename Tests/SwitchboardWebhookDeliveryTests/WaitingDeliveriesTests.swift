import SwitchboardWebhooks
import Testing

@testable import SwitchboardWebhookDelivery

/// The held deliveries' pass: order, slots, leases running out, and what a
/// pass looks at.
@Suite struct WaitingDeliveriesTests {
    /// Delivery `n` of `endpoint`, its lease ending at `leaseEndsAt`.
    private func held(_ n: Int, _ endpoint: String, leaseEndsAt: UInt64 = 100_000) -> HeldDelivery {
        HeldDelivery(
            delivery: DueDelivery(
                id: "dlv_\(n)", eventID: "evt_\(n)", endpointID: endpoint, url: "http://example.com/\(endpoint)",
                secrets: [], body: "{}", attempt: 0, eventCreatedAt: 0),
            leaseEndsAt: leaseEndsAt)
    }

    private func ids(_ waiting: WaitingDeliveries) -> [String] { waiting.entries.map(\.delivery.id) }

    /// A start that has `slots[endpoint]` slots, and records what it was offered.
    private final class Slots {
        var free: [String: Int]
        var offered: [String] = []
        init(_ free: [String: Int]) { self.free = free }
        func start(_ held: HeldDelivery) -> WaitingDeliveries.Start {
            offered.append(held.delivery.id)
            guard let left = free[held.delivery.endpointID], left > 0 else { return .noSlot }
            free[held.delivery.endpointID] = left - 1
            return .started
        }
    }

    @Test func oneBusyEndpointsPassLooksAtTheStartedAndTheFirstThatFoundNoSlot() {
        var waiting = WaitingDeliveries()
        waiting.append(contentsOf: (1...200).map { held($0, "ep_busy") })
        let slots = Slots(["ep_busy": 1])
        let tooLate = waiting.pass(tooLateBefore: 50_000, slots.start)
        #expect(tooLate.isEmpty)
        #expect(slots.offered == ["dlv_1", "dlv_2"])
        #expect(waiting.lookedAtByLastPass == 2, "not the other 198")
        #expect(ids(waiting) == (2...200).map { "dlv_\($0)" })
        // The next slot starts the next in order.
        slots.free["ep_busy"] = 2
        _ = waiting.pass(tooLateBefore: 50_000, slots.start)
        #expect(ids(waiting) == (4...200).map { "dlv_\($0)" })
        #expect(waiting.lookedAtByLastPass == 3)
    }

    @Test func anEndpointWithASlotBehindAFullOneIsReachedAndOrderIsKept() {
        var waiting = WaitingDeliveries()
        waiting.append(contentsOf: [
            held(1, "a"), held(2, "a"), held(3, "b"), held(4, "a"), held(5, "c"), held(6, "b"), held(7, "c"),
        ])
        let slots = Slots(["a": 0, "b": 1, "c": 0])
        _ = waiting.pass(tooLateBefore: 0, slots.start)
        // a asked once, b started once and then found full, c asked once; dlv_7 not looked at.
        #expect(slots.offered == ["dlv_1", "dlv_3", "dlv_5", "dlv_6"])
        #expect(waiting.lookedAtByLastPass == 6)
        #expect(ids(waiting) == ["dlv_1", "dlv_2", "dlv_4", "dlv_5", "dlv_6", "dlv_7"])
        slots.free = ["a": 2, "b": 0, "c": 5]
        _ = waiting.pass(tooLateBefore: 0, slots.start)
        #expect(ids(waiting) == ["dlv_4", "dlv_6"])
        slots.free = ["a": 1, "b": 1]
        _ = waiting.pass(tooLateBefore: 0, slots.start)
        #expect(waiting.isEmpty)
    }

    @Test func aLeaseRunningOutIsFoundBehindAFullEndpoint() {
        var waiting = WaitingDeliveries()
        waiting.append(contentsOf: (1...50).map { held($0, "ep", leaseEndsAt: 20_000) })
        waiting.append(contentsOf: [held(51, "ep", leaseEndsAt: 9_000)])
        let slots = Slots(["ep": 0])
        // Before any lease runs out the pass stops at the full endpoint.
        #expect(waiting.pass(tooLateBefore: 8_000, slots.start).isEmpty)
        #expect(waiting.lookedAtByLastPass == 1)
        // Once one may, every entry is looked at, and the one found is handed back.
        let tooLate = waiting.pass(tooLateBefore: 10_000, slots.start)
        #expect(tooLate.map(\.delivery.id) == ["dlv_51"])
        #expect(waiting.lookedAtByLastPass == 51)
        #expect(waiting.count == 50)
        // Those left end at 20,000: the passes stop early again.
        _ = waiting.pass(tooLateBefore: 12_000, slots.start)
        #expect(waiting.lookedAtByLastPass == 1)
        // And all of them are handed back once their time comes.
        #expect(waiting.pass(tooLateBefore: 20_001, slots.start).count == 50)
        #expect(waiting.isEmpty)
    }

    @Test func aStartThatEndsAtOnceLeavesAndTheCountsFollow() {
        var waiting = WaitingDeliveries()
        waiting.append(contentsOf: [held(1, "a"), held(2, "b"), held(3, "a")])
        let slots = Slots(["a": 2, "b": 0])
        _ = waiting.pass(tooLateBefore: 0, slots.start)
        #expect(ids(waiting) == ["dlv_2"])
        // b alone is left: one look, and it stays.
        _ = waiting.pass(tooLateBefore: 0, slots.start)
        #expect(waiting.lookedAtByLastPass == 1)
        waiting.append(contentsOf: [held(4, "a")])
        slots.free["a"] = 1
        _ = waiting.pass(tooLateBefore: 0, slots.start)
        #expect(ids(waiting) == ["dlv_2"], "a's new entry is reached past the full b")
        #expect(waiting.removeAll().map(\.delivery.id) == ["dlv_2"])
        #expect(waiting.isEmpty)
        #expect(waiting.pass(tooLateBefore: 0, slots.start).isEmpty)
    }

    /// What passes cut off the front leaves by the head index; the order holds through the
    /// shifts down, and deliveries added meanwhile come after the rest.
    @Test func passesThatStartAtTheFrontKeepTheOrderThroughEveryShift() {
        var waiting = WaitingDeliveries()
        waiting.append(contentsOf: (1...100).map { held($0, "ep_busy") })
        let slots = Slots([:])
        var next = 1
        var added = 100
        for round in 1...150 {
            slots.free["ep_busy"] = round % 3
            _ = waiting.pass(tooLateBefore: 0, slots.start)
            next += round % 3
            if round % 10 == 0 {
                waiting.append(contentsOf: (added + 1...added + 5).map { held($0, "ep_busy") })
                added += 5
            }
            #expect(ids(waiting) == (next...added).map { "dlv_\($0)" }, "round \(round)")
            #expect(waiting.count == added - next + 1)
        }
        #expect(waiting.removeAll().map(\.delivery.id) == (next...added).map { "dlv_\($0)" })
        #expect(waiting.isEmpty)
    }
}
