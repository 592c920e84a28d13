import SwitchboardRouting
import Testing

/// Each policy's pick over candidates made by hand.
@Suite struct RoutingPolicyTests {
    private func candidate(_ id: String, load: Int = 0, capacity: Int = 5, last: Int64? = nil) -> RoutingCandidate {
        RoutingCandidate(operatorID: id, load: load, capacity: capacity, lastAssignedAt: last)
    }

    @Test func leastBusyTakesTheFewestOpenSessions() {
        let policy = LeastBusyPolicy()
        #expect(policy.pick(from: [candidate("a", load: 3), candidate("b", load: 1), candidate("c", load: 2)]) == "b")
        #expect(policy.pick(from: []) == nil)
    }

    @Test func leastBusyBreaksTiesByTheLeastRecentlyAssignedThenById() {
        let policy = LeastBusyPolicy()
        let tied = [candidate("a", load: 1, last: 300), candidate("b", load: 1, last: 100), candidate("c", load: 2)]
        #expect(policy.pick(from: tied) == "b")
        let never = [candidate("a", load: 1, last: 100), candidate("b", load: 1, last: nil)]
        #expect(policy.pick(from: never) == "b", "never assigned counts as least recently")
        let same = [
            candidate("c", load: 0, last: 5), candidate("a", load: 0, last: 5), candidate("b", load: 0, last: 5),
        ]
        #expect(policy.pick(from: same) == "a", "then the id, so every node decides alike")
    }

    @Test func roundRobinTakesTheLeastRecentlyAssignedWhateverItsLoad() {
        let policy = RoundRobinPolicy()
        #expect(policy.pick(from: [candidate("a", load: 0, last: 20), candidate("b", load: 4, last: 10)]) == "b")
        #expect(policy.pick(from: [candidate("a", last: 20), candidate("b", load: 4, last: nil)]) == "b")
        #expect(policy.pick(from: [candidate("b", last: 7), candidate("a", last: 7)]) == "a")
        #expect(policy.pick(from: []) == nil)
    }

    @Test func manualNeverPicks() {
        #expect(ManualPolicy().pick(from: [candidate("a"), candidate("b")]) == nil)
    }

    @Test func eachModeHasItsPolicy() {
        let candidates = [candidate("a", load: 2, last: 1), candidate("b", load: 0, last: 9)]
        #expect(RoutingMode.leastBusy.policy.pick(from: candidates) == "b")
        #expect(RoutingMode.roundRobin.policy.pick(from: candidates) == "a")
        #expect(RoutingMode.manual.policy.pick(from: candidates) == nil)
        #expect(
            RoutingMode(rawValue: "least_busy") == .leastBusy && RoutingMode(rawValue: "round_robin") == .roundRobin)
    }
}
