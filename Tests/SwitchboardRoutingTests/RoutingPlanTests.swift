import SwitchboardRouting
import Testing

/// The plan a pass applies: the queue in order against the candidates,
/// with the invariants the integration tests hold the database to (no
/// operator past capacity, no session twice, first come first served).
@Suite struct RoutingPlanTests {
    static let now: Int64 = 1_800_000_000_000_000

    private func queue(_ count: Int, from start: Int = 0) -> [QueuedSession] {
        (start..<start + count).map {
            QueuedSession(id: "s" + String(10_000 + $0).dropFirst(), waitingSince: 1_000 + Int64($0))
        }
    }

    private func operators(_ count: Int, capacity: Int = 5, load: Int = 0) -> [RoutingCandidate] {
        (0..<count).map { RoutingCandidate(operatorID: "op\($0)", load: load, capacity: capacity) }
    }

    private func loads(_ plan: RoutingPlan) -> [String: Int] {
        Dictionary(plan.assignments.map { ($0.operatorID, 1) }, uniquingKeysWith: +)
    }

    @Test func twoHundredSessionsAndTenOperatorsOfFiveGiveFiftyAndQueueTheRest() {
        let sessions = queue(200)
        let plan = RoutingPlan(queue: sessions, candidates: operators(10), policy: LeastBusyPolicy(), now: Self.now)
        #expect(plan.assignments.count == 50)
        #expect(plan.waiting == Array(sessions[50...]), "the rest wait, in order")
        #expect(loads(plan).count == 10 && loads(plan).values.allSatisfy { $0 == 5 })
        #expect(Set(plan.assignments.map(\.sessionID)).count == 50, "no session twice")
        #expect(plan.assignments.map(\.sessionID) == sessions[..<50].map(\.id), "the oldest first")
        #expect(plan.candidates.allSatisfy { $0.load == 5 && !$0.hasRoom })
    }

    @Test func theQueueIsServedInWaitingOrderWhateverOrderItCameIn() {
        let sessions = queue(6)
        let plan = RoutingPlan(
            queue: sessions.reversed(), candidates: operators(1, capacity: 4), policy: LeastBusyPolicy(), now: Self.now)
        #expect(plan.assignments.map(\.sessionID) == ["s0000", "s0001", "s0002", "s0003"])
        #expect(plan.waiting.map(\.id) == ["s0004", "s0005"])
        let sameTime = [QueuedSession(id: "b", waitingSince: 7), QueuedSession(id: "a", waitingSince: 7)]
        let tie = RoutingPlan(
            queue: sameTime, candidates: operators(1, capacity: 1), policy: LeastBusyPolicy(), now: Self.now)
        #expect(tie.assignments.map(\.sessionID) == ["a"], "equal waits in id order, as the queue index sorts")
    }

    @Test func loadsAlreadyHeldCountAgainstCapacity() {
        let candidates = [
            RoutingCandidate(operatorID: "full", load: 5, capacity: 5),
            RoutingCandidate(operatorID: "over", load: 7, capacity: 5),
            RoutingCandidate(operatorID: "none", load: 0, capacity: 0),
            RoutingCandidate(operatorID: "one-left", load: 4, capacity: 5),
        ]
        let plan = RoutingPlan(queue: queue(3), candidates: candidates, policy: LeastBusyPolicy(), now: Self.now)
        #expect(plan.assignments.map(\.operatorID) == ["one-left"])
        #expect(plan.waiting.count == 2)
        #expect(plan.candidates.map(\.load) == [5, 7, 0, 5], "an operator past capacity by hand gets nothing more")
    }

    @Test func leastBusyEvensTheLoadOut() {
        let candidates = [
            RoutingCandidate(operatorID: "a", load: 0, capacity: 5, lastAssignedAt: 10),
            RoutingCandidate(operatorID: "b", load: 2, capacity: 5, lastAssignedAt: 5),
            RoutingCandidate(operatorID: "c", load: 2, capacity: 5, lastAssignedAt: 20),
        ]
        let plan = RoutingPlan(queue: queue(5), candidates: candidates, policy: LeastBusyPolicy(), now: Self.now)
        // a to 1, a to 2; then all at 2: b (least recent), then c (a and b were just given one), then a.
        #expect(plan.assignments.map(\.operatorID) == ["a", "a", "b", "c", "a"])
        #expect(plan.candidates.map(\.load) == [3, 3, 3])
    }

    @Test func roundRobinRotatesWithinAPassAndAcrossPasses() {
        let first = RoutingPlan(
            queue: queue(7), candidates: operators(3), policy: RoundRobinPolicy(), now: Self.now)
        #expect(first.assignments.map(\.operatorID) == ["op0", "op1", "op2", "op0", "op1", "op2", "op0"])
        // The next pass starts where this one stopped, even at an earlier clock.
        let second = RoutingPlan(
            queue: queue(2, from: 7), candidates: first.candidates, policy: RoundRobinPolicy(), now: Self.now - 1_000)
        #expect(second.assignments.map(\.operatorID) == ["op1", "op2"])
    }

    @Test func stampsGrowThroughThePassAndFollowEveryEarlierOne() {
        let plan = RoutingPlan(queue: queue(3), candidates: operators(2), policy: LeastBusyPolicy(), now: Self.now)
        #expect(plan.assignments.map(\.assignedAt) == [Self.now, Self.now + 1, Self.now + 2])
        let ahead = [RoutingCandidate(operatorID: "a", load: 0, capacity: 5, lastAssignedAt: Self.now + 500)]
        let skewed = RoutingPlan(queue: queue(1), candidates: ahead, policy: LeastBusyPolicy(), now: Self.now)
        #expect(skewed.assignments.first?.assignedAt == Self.now + 501, "a faster clock elsewhere is followed")
        #expect(skewed.candidates.first?.lastAssignedAt == Self.now + 501)
    }

    @Test func aSessionQueuedTwiceIsGivenOnceAndAnOperatorNamedTwiceCountsOnce() {
        let sessions = queue(2) + queue(2)
        let doubled = operators(1, capacity: 3) + operators(1, capacity: 3)
        let plan = RoutingPlan(queue: sessions, candidates: doubled, policy: LeastBusyPolicy(), now: Self.now)
        #expect(plan.assignments.map(\.sessionID) == ["s0000", "s0001"])
        #expect(plan.candidates.count == 1 && plan.candidates[0].load == 2)
        #expect(plan.waiting.isEmpty)
    }

    @Test func nobodyToPickLeavesTheWholeQueueWaiting() {
        let sessions = queue(4)
        let manual = RoutingPlan(queue: sessions, candidates: operators(3), policy: ManualPolicy(), now: Self.now)
        #expect(manual.assignments.isEmpty && manual.waiting == sessions && manual.candidates == operators(3))
        let empty = RoutingPlan(queue: sessions, candidates: [], policy: LeastBusyPolicy(), now: Self.now)
        #expect(empty.assignments.isEmpty && empty.waiting == sessions)
        #expect(
            RoutingPlan(queue: [], candidates: operators(2), policy: LeastBusyPolicy(), now: Self.now).assignments
                .isEmpty)
    }

    /// A policy that answers with someone not among the candidates is taken as declining.
    @Test func aPickOutsideTheCandidatesAssignsNothing() {
        struct Stray: RoutingPolicy {
            func pick(from candidates: [RoutingCandidate]) -> String? { "nobody" }
        }
        let plan = RoutingPlan(queue: queue(2), candidates: operators(2), policy: Stray(), now: Self.now)
        #expect(plan.assignments.isEmpty && plan.waiting.count == 2)
    }

    /// A policy only ever sees candidates with room.
    @Test func thePolicyIsShownOnlyOperatorsWithRoom() {
        final class Recorder: RoutingPolicy, @unchecked Sendable {
            var seen: [[String]] = []
            func pick(from candidates: [RoutingCandidate]) -> String? {
                seen.append(candidates.map(\.operatorID))
                return LeastBusyPolicy().pick(from: candidates)
            }
        }
        let recorder = Recorder()
        let candidates = [
            RoutingCandidate(operatorID: "a", load: 0, capacity: 1),
            RoutingCandidate(operatorID: "b", load: 1, capacity: 1),
            RoutingCandidate(operatorID: "c", load: 0, capacity: 2),
        ]
        _ = RoutingPlan(queue: queue(4), candidates: candidates, policy: recorder, now: Self.now)
        #expect(recorder.seen == [["a", "c"], ["c"], ["c"]], "only those with room, and only while one has")
    }

    /// Random workspaces: whatever the loads, capacities, histories and
    /// queue, both automatic policies give exactly as many sessions as
    /// there is room for, the oldest first, never past a capacity, never one twice.
    @Test(arguments: [RoutingMode.leastBusy, .roundRobin])
    func invariantsHoldForRandomWorkspaces(_ mode: RoutingMode) {
        var random = SplitMix(seed: mode == .leastBusy ? 32 : 23)
        for _ in 0..<500 {
            let candidates = (0..<random.next(below: 8)).map { index in
                RoutingCandidate(
                    operatorID: "op\(index)", load: random.next(below: 7), capacity: random.next(below: 6),
                    lastAssignedAt: random.next(below: 3) == 0 ? nil : Int64(random.next(below: 1_000)))
            }
            let sessions = (0..<random.next(below: 40)).map {
                QueuedSession(id: "s\($0)", waitingSince: Int64(random.next(below: 50)))
            }
            let plan = RoutingPlan(queue: sessions, candidates: candidates, policy: mode.policy, now: Self.now)
            let room = candidates.reduce(0) { $0 + max(0, $1.capacity - $1.load) }
            let ordered = sessions.sorted { ($0.waitingSince, $0.id) < ($1.waitingSince, $1.id) }
            #expect(plan.assignments.count == min(room, sessions.count))
            #expect(plan.assignments.map(\.sessionID) == ordered.prefix(plan.assignments.count).map(\.id))
            #expect(plan.waiting == Array(ordered.dropFirst(plan.assignments.count)))
            for (before, after) in zip(candidates, plan.candidates) {
                let given = plan.assignments.filter { $0.operatorID == before.operatorID }.count
                #expect(after.load == before.load + given)
                #expect(given == 0 || after.load <= after.capacity)
            }
        }
    }
}

/// A small seeded generator, so that a failing case fails again.
struct SplitMix {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next(below bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(max(1, bound)))
    }
}
