import Testing

@testable import SwitchboardChatCore

/// A join subscribes at once and replays history; live messages that arrive
/// while the replay is read are held, and every message reaches the joiner
/// exactly once, in seq order.
@Suite struct ChatCoreJoinTests {
    @Test func liveMessagesDuringTheReplayAreNeitherLostNorRepeated() {
        let harness = CoreHarness()
        let (_, session) = harness.visitorWithSession()
        for index in 1...5 { harness.storeMessage(session, body: "old \(index)") }
        harness.settle()

        let ken = harness.connect(.operator, "op-ken")
        ken.send(["type": "join", "session_id": session, "since_seq": 2])
        // Committed before the replay is read: held, and also in the replay.
        harness.storeMessage(session, body: "during 6")
        harness.loops[0].run()
        #expect(ken.peer.frames.isEmpty, "nothing goes out before `joined`")
        harness.readers[0].runQueries()
        // Committed after the replay was read, reaching the loop after its answer: live.
        harness.storeMessage(session, body: "after 7")
        harness.settle()

        let frames = ken.peer.take()
        #expect(frames.types.first == "joined")
        #expect(frames.first?["last_seq"] as? Int == 6)
        #expect(frames.seqs == [3, 4, 5, 6, 7])
    }

    @Test func messagesHeldDuringTheReplayThatItMissedAreReleasedInOrder() {
        let harness = CoreHarness()
        let (_, session) = harness.visitorWithSession()
        harness.storeMessage(session, body: "one")
        let ken = harness.connect(.operator, "op-ken")
        ken.send(["type": "join", "session_id": session])
        harness.readers[0].runQueries(postAnswers: false)  // the replay sees seq 1 only
        harness.storeMessage(session, body: "two")
        harness.storeMessage(session, body: "three")
        // The batches reach the loop before the answer: held, then released after it.
        harness.readers[0].postAnswers()
        harness.loops[0].run()
        let frames = ken.peer.take()
        #expect(frames.types == ["joined", "message", "message", "message"])
        #expect(frames.seqs == [1, 2, 3])
        #expect(ken.peer.batches == [4], "joined, the replay and what was held go out as one send")
    }

    @Test func aJoinerThatCannotKeepUpWhileJoiningIsClosedWith1008() {
        let harness = CoreHarness { $0.maxReplayBuffer = 3 }
        let (visitor, session) = harness.visitorWithSession()
        let ken = harness.connect(.operator, "op-ken")
        ken.send(["type": "join", "session_id": session])
        for index in 1...3 { harness.storeMessage(session, body: "held \(index)") }
        harness.loops[0].run()
        #expect(ken.peer.closedWith == nil, "three frames may wait")
        harness.storeMessage(session, body: "one too many")
        harness.loops[0].run()
        #expect(ken.peer.closedWith?.code == 1008)
        #expect(visitor.peer.closedWith == nil, "the others keep receiving")
        #expect(visitor.peer.take().seqs == [1, 2, 3, 4])
    }

    @Test func aRefusedJoinUnsubscribesAndSaysWhy() {
        let harness = CoreHarness()
        let (_, session) = harness.visitorWithSession()
        let stranger = harness.connect(.visitor, "v-2")
        stranger.send(["type": "join", "session_id": session, "ref": "j1"])
        stranger.send(["type": "send", "session_id": session, "client_msg_id": "m1", "body": "hi", "ref": "s1"])
        harness.settle()
        let frames = stranger.peer.take()
        #expect(frames.map { $0["ref"] as? String } == ["s1", "j1"])
        #expect(frames.map { $0["code"] as? String } == ["forbidden", "forbidden"])
        harness.storeMessage(session, body: "private")
        harness.settle()
        #expect(stranger.peer.take().isEmpty, "a refused joiner gets nothing of the session")
        #expect(harness.database.pending.isEmpty)
    }

    @Test func anAnswerForAnAbandonedJoinIsIgnored() {
        let harness = CoreHarness()
        let (_, session) = harness.visitorWithSession()
        let ken = harness.connect(.operator, "op-ken")
        ken.send(["type": "join", "session_id": session, "ref": "first"])
        ken.send(["type": "leave", "session_id": session, "ref": "gone"])
        harness.settle()
        #expect(ken.peer.take().map { $0["ref"] as? String } == ["gone"])
        harness.storeMessage(session, body: "after leaving")
        harness.settle()
        #expect(ken.peer.take().isEmpty)
    }
}
