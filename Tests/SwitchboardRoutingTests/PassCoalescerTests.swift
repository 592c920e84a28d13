import SwitchboardRouting
import Testing

/// A burst of triggers costs at most two passes, and none is lost.
@Suite struct PassCoalescerTests {
    @Test func aTriggerStartsAPassWhenNoneRuns() {
        var coalescer = PassCoalescer()
        let first = coalescer.request("w1")
        #expect(first && coalescer.isRunning("w1") && !coalescer.isRunning("w2"))
        let other = coalescer.request("w2")
        #expect(other, "workspaces are independent")
        let again = coalescer.finished("w1")
        #expect(!again && !coalescer.isRunning("w1"))
        let restarted = coalescer.request("w1")
        #expect(restarted, "idle again")
    }

    @Test func triggersDuringAPassBecomeOneMorePass() {
        var coalescer = PassCoalescer()
        let started = coalescer.request("w")
        var startedMore = 0
        for _ in 0..<200 where coalescer.request("w") { startedMore += 1 }
        #expect(started && startedMore == 0)
        let second = coalescer.finished("w")
        #expect(second && coalescer.isRunning("w"), "one more, for what came meanwhile")
        let third = coalescer.finished("w")
        #expect(!third && !coalescer.isRunning("w"), "nothing came during the second")
    }

    @Test func anAbandonedPassLeavesTheWorkspaceIdle() {
        var coalescer = PassCoalescer()
        let started = coalescer.request("w")
        let queued = coalescer.request("w")
        coalescer.abandoned("w")
        let again = coalescer.finished("w")
        #expect(started && !queued && !again && !coalescer.isRunning("w"))
    }

    @Test func aFinishForAWorkspaceNotRunningIsIgnored() {
        var coalescer = PassCoalescer()
        let finished = coalescer.finished("w")
        let started = coalescer.request("w")
        #expect(!finished && started)
    }
}
