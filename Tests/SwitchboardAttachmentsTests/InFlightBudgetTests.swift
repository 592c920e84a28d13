import Dispatch
import SwitchboardAttachments
import Synchronization
import Testing

@Suite("InFlightBudget")
struct InFlightBudgetTests {
    @Test func reserveUpToTheLimit() {
        let budget = InFlightBudget(limit: 100)
        #expect(budget.reserve(60))
        #expect(budget.inUse == 60)
        #expect(!budget.reserve(41))
        #expect(budget.inUse == 60)
        #expect(budget.reserve(40))
        #expect(budget.inUse == 100)
        #expect(!budget.reserve(1))
        #expect(budget.reserve(0))
        budget.release(100)
        #expect(budget.inUse == 0)
        #expect(!budget.reserve(101))
        #expect(budget.reserve(100))
    }

    @Test func hugeRequestsDoNotOverflow() {
        let budget = InFlightBudget(limit: Int.max)
        #expect(budget.reserve(Int.max))
        #expect(!budget.reserve(Int.max))
        #expect(!budget.reserve(1))
        budget.release(Int.max)
        #expect(budget.inUse == 0)
    }

    /// Eight threads take one byte at a time until none is left: together they get
    /// exactly the limit, never more.
    @Test func concurrentReservationsNeverExceedTheLimit() {
        let limit = 20_000
        let budget = InFlightBudget(limit: limit)
        let granted = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            while budget.reserve(1) { granted.add(1, ordering: .relaxed) }
        }
        #expect(granted.load(ordering: .relaxed) == limit)
        #expect(budget.inUse == limit)
    }

    /// Threads reserve and release windows of different sizes; the budget is never
    /// seen past its limit and ends at zero.
    @Test func concurrentReserveAndReleaseBalances() {
        let limit = 1_000
        let budget = InFlightBudget(limit: limit)
        let overLimit = Atomic<Int>(0)
        let granted = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            let window = 50 + thread * 37
            for _ in 0..<20_000 {
                guard budget.reserve(window) else { continue }
                granted.add(1, ordering: .relaxed)
                if budget.inUse > limit { overLimit.add(1, ordering: .relaxed) }
                budget.release(window)
            }
        }
        #expect(overLimit.load(ordering: .relaxed) == 0)
        #expect(granted.load(ordering: .relaxed) > 0)
        #expect(budget.inUse == 0)
    }
}
