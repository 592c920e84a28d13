import SwitchboardChat
import SwitchboardCluster
import SwitchboardWriter
import Testing

@testable import SwitchboardChatCore

/// Messages another node committed reach this node's subscribers in seq
/// order, once, whatever the bus loses or reorders: the database fills in.
@Suite struct ChatCoreRepairTests {
    /// A message another node stored; returned as the bus would carry it, never fanned out here.
    private func storedElsewhere(_ harness: CoreHarness, _ session: String, _ body: String) -> ChatMessage {
        _ = harness.database.submit(
            WriteCommandFixture.make(sessionID: session, clientMessageID: "elsewhere-\(body)", body: body))
        let batch = harness.database.commitPending()
        guard case .stored(let row) = batch.results[0].outcome else { fatalError("not stored") }
        return ChatMessage(row)
    }

    private func joinedOperator(_ harness: CoreHarness, _ session: String, loop: Int = 0) -> CoreHarness.Client {
        let ken = harness.connect(.operator, "op-ken", loop: loop)
        ken.send(["type": "join", "session_id": session])
        harness.settle()
        _ = ken.peer.take()
        return ken
    }

    @Test func aLostNotificationIsReadFromTheDatabaseBeforeTheNextMessage() {
        let harness = CoreHarness(loops: 2)
        let (_, session) = harness.visitorWithSession()
        let ken = joinedOperator(harness, session, loop: 1)
        _ = storedElsewhere(harness, session, "lost")
        let next = storedElsewhere(harness, session, "arrived")
        harness.cores.everyCore(fromDatabaseThread: { $0.deliverCommitted([next], sessions: []) })
        harness.settle()
        #expect(ken.peer.frames.ofType("message").map { $0["body"] as? String } == ["lost", "arrived"])
        #expect(ken.peer.frames.seqs == [1, 2])
    }

    @Test func aNotificationThatOvertakesThisNodesOwnCommitWaitsForIt() {
        let harness = CoreHarness()
        let (visitor, session) = harness.visitorWithSession()
        let ken = joinedOperator(harness, session)
        visitor.send(["type": "send", "session_id": session, "client_msg_id": "mine", "body": "mine"])
        // The batch commits (seq 1), another node's message (seq 2) is notified before this node's result arrives.
        let mine = harness.database.commitPending()
        let theirs = storedElsewhere(harness, session, "theirs")
        let core = harness.cores.core(forLoop: 0)
        core.deliverCommitted([theirs], sessions: [])
        #expect(ken.peer.frames.ofType("message").isEmpty, "held behind the gap")
        core.committed(mine)
        harness.settle()
        #expect(ken.peer.frames.ofType("message").map { $0["body"] as? String } == ["mine", "theirs"])
        #expect(visitor.peer.frames.ofType("ack").count == 1)
    }

    @Test func catchingUpAfterTheBusWasLostDeliversWhatItMissedAndSaysWhenDone() {
        let harness = CoreHarness()
        let (_, session) = harness.visitorWithSession()
        let ken = joinedOperator(harness, session)
        for body in ["a", "b", "c"] { _ = storedElsewhere(harness, session, body) }
        let done = Callback()
        harness.cores.core(forLoop: 0).catchUpAll { done.value = true }
        harness.settle()
        #expect(ken.peer.frames.ofType("message").map { $0["body"] as? String } == ["a", "b", "c"])
        #expect(done.value)
        // Arriving late on the bus, they are not sent again.
        harness.cores.core(forLoop: 0).deliverCommitted([storedElsewhere(harness, session, "d")], sessions: [])
        harness.settle()
        #expect(ken.peer.frames.seqs == [1, 2, 3, 4])
    }

    @Test func aRangeTooBigToCarryIsReadAndTheInboxHearsOfTheSession() {
        let harness = CoreHarness()
        let (_, session) = harness.visitorWithSession()
        let ken = joinedOperator(harness, session)
        let ann = harness.connect(.operator, "op-ann")
        ann.send(["type": "inbox.subscribe"])
        harness.settle()
        _ = ann.peer.take()
        for body in ["x", "y"] { _ = storedElsewhere(harness, session, body) }
        harness.cores.core(forLoop: 0).hint([
            CommittedRange(sessionID: session, workspaceID: CoreHarness.workspace, firstSeq: 1, lastSeq: 2)
        ])
        harness.settle()
        #expect(ken.peer.frames.ofType("message").map { $0["body"] as? String } == ["x", "y"])
        let updated = ann.peer.frames.ofType("session.updated").last?["session"] as? [String: Any]
        #expect(updated?["last_seq"] as? Int == 2)
    }

    @Test func theSweepFindsALostNotificationWithoutReadingSessionsThatAreMerelyBusy() {
        let harness = CoreHarness()
        let (_, session) = harness.visitorWithSession()
        let ken = joinedOperator(harness, session)
        let core = harness.cores.core(forLoop: 0)
        // In flight, not lost: stored, and delivered before the next sweep.
        let first = storedElsewhere(harness, session, "in flight")
        core.sweep {}
        harness.settle()
        core.deliverCommitted([first], sessions: [])
        core.sweep {}
        harness.settle()
        #expect(ken.peer.frames.ofType("message").map { $0["body"] as? String } == ["in flight"])
        let readsBefore = harness.database.messageReads
        // Lost: nobody delivers it; the first sweep notes the database's last_seq, the second reads it.
        _ = storedElsewhere(harness, session, "lost")
        core.sweep {}
        harness.settle()
        #expect(ken.peer.frames.ofType("message").count == 1)
        #expect(harness.database.messageReads == readsBefore, "a sweep reads no messages of a session not behind")
        core.sweep {}
        harness.settle()
        #expect(ken.peer.frames.ofType("message").map { $0["body"] as? String } == ["in flight", "lost"])
    }

    @Test func catchingUpWithNothingJoinedIsDoneAtOnce() {
        let harness = CoreHarness()
        let done = Callback()
        harness.cores.core(forLoop: 0).catchUpAll { done.value = true }
        #expect(done.value)
    }
}

/// Set by a callback that runs on the test's thread (the manual loops).
private final class Callback: @unchecked Sendable {
    var value = false
}
