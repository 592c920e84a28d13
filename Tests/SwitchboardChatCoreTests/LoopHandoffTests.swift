import Foundation
import Logging
import SwitchboardSystem
import Testing

@testable import SwitchboardChatCore

/// A full loop queue: database threads wait for it, loops never do.
@Suite struct LoopHandoffTests {
    private func handoff(_ loop: ManualLoop) -> LoopHandoff {
        var logger = Logger(label: "handoff-test")
        logger.logLevel = .critical
        return LoopHandoff(index: 0, loop: loop, logger: logger)
    }

    @Test func aDatabaseThreadWaitsForAFullLoopInsteadOfDroppingItsResult() throws {
        let loop = ManualLoop(capacity: 1)
        #expect(loop.execute {})
        let delivered = Flag()
        let handoff = handoff(loop)
        let poster = NamedThread.spawn(name: "test-writer") {
            handoff.post { delivered.set() }
        }
        Thread.sleep(forTimeInterval: 0.05)
        #expect(loop.queued == 1, "the result is still waiting for room")
        // The loop drains its queue; the waiting result gets in and runs on the next pass.
        let deadline = Date().addingTimeInterval(10)
        while !delivered.isSet && Date() < deadline {
            loop.run()
            Thread.sleep(forTimeInterval: 0.001)
        }
        poster.join()
        #expect(delivered.isSet)
    }

    @Test func aStoppedLoopReleasesAWaitingDatabaseThread() {
        let loop = ManualLoop(capacity: 1)
        #expect(loop.execute {})
        let handoff = handoff(loop)
        let returned = Flag()
        let poster = NamedThread.spawn(name: "test-writer") {
            handoff.post {}
            returned.set()
        }
        loop.stop()
        let deadline = Date().addingTimeInterval(10)
        while !returned.isSet && Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
        #expect(returned.isSet, "shutdown must not hang the writer")
        poster.join()
    }

    @Test func aLoopOfferingToAFullLoopDropsTheEventWithoutWaiting() {
        let harness = CoreHarness(loops: 2, loopCapacity: 1)
        let vera = harness.connect(.visitor, "v-vera", loop: 0)
        let session = harness.createSession(vera)
        let ken = harness.connect(.operator, "op-ken", loop: 1)
        ken.send(["type": "join", "session_id": session])
        harness.settle()
        _ = ken.peer.take()
        #expect(harness.loops[1].execute {}, "loop 1's queue is now full")
        vera.send(["type": "typing", "session_id": session, "state": true])  // returns: the test would hang otherwise
        harness.settle()
        #expect(ken.peer.take().isEmpty, "the typing event was dropped, not queued")
        vera.send(["type": "typing", "session_id": session, "state": false])
        harness.settle()
        #expect(ken.peer.take().types == ["typing"], "with room again, events flow")
    }
}
