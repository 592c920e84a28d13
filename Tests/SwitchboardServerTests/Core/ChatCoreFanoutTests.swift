import Testing

@testable import SwitchboardServer

/// Fan-out reaches the session's subscribers on every loop and nobody else;
/// events follow the same paths.
@Suite struct ChatCoreFanoutTests {
    @Test func messagesReachTheSessionsSubscribersOnEveryLoopAndNobodyElse() {
        let harness = CoreHarness(loops: 2)
        let vera = harness.connect(.visitor, "v-vera", loop: 0)
        let mine = harness.createSession(vera)
        let otto = harness.connect(.visitor, "v-otto", loop: 1)
        let theirs = harness.createSession(otto)
        let ken = harness.connect(.operator, "op-ken", loop: 1)
        let ann = harness.connect(.operator, "op-ann", loop: 0)
        ken.send(["type": "join", "session_id": mine])
        ann.send(["type": "join", "session_id": theirs])
        harness.settle()
        for client in [vera, otto, ken, ann] { _ = client.peer.take() }

        vera.send(["type": "send", "session_id": mine, "client_msg_id": "a", "body": "to mine"])
        otto.send(["type": "send", "session_id": theirs, "client_msg_id": "b", "body": "to theirs"])
        harness.commit()
        harness.settle()
        #expect(vera.peer.frames.ofType("message").map { $0["body"] as? String } == ["to mine"])
        #expect(ken.peer.frames.ofType("message").map { $0["body"] as? String } == ["to mine"])
        #expect(otto.peer.frames.ofType("message").map { $0["body"] as? String } == ["to theirs"])
        #expect(ann.peer.frames.ofType("message").map { $0["body"] as? String } == ["to theirs"])
        #expect(vera.peer.frames.ofType("ack").count == 1 && otto.peer.frames.ofType("ack").count == 1)
        #expect(ken.peer.frames.ofType("ack").isEmpty && ann.peer.frames.ofType("ack").isEmpty)
    }

    @Test func severalMessagesOfABatchReachASubscriberInOneSend() {
        let harness = CoreHarness()
        let vera = harness.connect(.visitor, "v-vera")
        let session = harness.createSession(vera)
        let ken = harness.connect(.operator, "op-ken")
        ken.send(["type": "join", "session_id": session])
        harness.settle()
        _ = ken.peer.take()
        for index in 1...4 {
            vera.send(["type": "send", "session_id": session, "client_msg_id": "m\(index)", "body": "\(index)"])
        }
        harness.commit()
        harness.settle()
        #expect(ken.peer.take().seqs == [1, 2, 3, 4])
        #expect(ken.peer.batches.last == 4)
    }

    @Test func typingGoesToTheOthersAndReadToEveryone() {
        let harness = CoreHarness(loops: 2)
        let vera = harness.connect(.visitor, "v-vera", name: "Vera", loop: 0)
        let session = harness.createSession(vera)
        let ken = harness.connect(.operator, "op-ken", name: "Ken", loop: 1)
        ken.send(["type": "join", "session_id": session])
        harness.storeMessage(session, body: "hello")
        harness.settle()
        for client in [vera, ken] { _ = client.peer.take() }

        ken.send(["type": "typing", "session_id": session, "state": true])
        harness.settle()
        #expect(ken.peer.take().isEmpty, "the typist does not hear itself")
        let typing = vera.peer.take()
        #expect(typing.types == ["typing"])
        #expect((typing.first?["sender"] as? [String: Any])?["name"] as? String == "Ken")

        ken.send(["type": "read", "session_id": session, "seq": 1])
        harness.settle()
        for client in [vera, ken] {
            let read = client.peer.take()
            #expect(read.types == ["read"] && read.first?["seq"] as? Int == 1)
        }
    }

    @Test func theInboxOfTheWorkspaceHearsOfNewSessionsMessagesAndChanges() {
        let harness = CoreHarness(loops: 2)
        let ken = harness.connect(.operator, "op-ken", name: "Ken", loop: 1)
        let stranger = harness.connect(.operator, "op-x", workspace: CoreHarness.otherWorkspace, loop: 1)
        ken.send(["type": "inbox.subscribe", "ref": "i"])
        stranger.send(["type": "inbox.subscribe"])
        harness.settle()
        #expect(ken.peer.take().types == ["inbox"])
        _ = stranger.peer.take()

        let vera = harness.connect(.visitor, "v-vera", loop: 0)
        let session = harness.createSession(vera)
        vera.send(["type": "send", "session_id": session, "client_msg_id": "m1", "body": "need help"])
        harness.commit()
        harness.settle()
        ken.send(["type": "session.assign", "session_id": session, "ref": "a"])
        harness.settle()

        let frames = ken.peer.take()
        #expect(frames.types == ["session.updated", "session.updated", "session.updated"])
        let sessions = frames.map { $0["session"] as? [String: Any] ?? [:] }
        #expect(sessions.map { $0["last_seq"] as? Int } == [0, 1, 1])
        #expect(((sessions[1]["last_message"] as? [String: Any])?["body"] as? String) == "need help")
        #expect(frames.map { $0["ref"] as? String } == [nil, nil, "a"], "the assigner gets its answer once")
        #expect(sessions[2]["status"] as? String == "assigned")
        #expect(stranger.peer.take().isEmpty, "another workspace's inbox hears nothing")
        #expect(
            vera.peer.take().ofType("session.updated").count == 1,
            "the session's own subscriber hears of the assignment")
    }

    @Test func aSessionThisLoopHasNotSeenIsLookedUpOnceForTheInbox() {
        let harness = CoreHarness(loops: 2)
        let vera = harness.connect(.visitor, "v-vera", loop: 0)
        let session = harness.createSession(vera)
        let ken = harness.connect(.operator, "op-ken", loop: 1)
        ken.send(["type": "inbox.subscribe"])
        harness.settle()
        _ = ken.peer.take()
        // Created before the subscription and with nothing listed: loop 1 learns of it by its messages only.
        harness.cores.core(forLoop: 1).directory = SessionDirectory()
        harness.storeMessage(session, body: "first")
        harness.storeMessage(session, body: "second")
        harness.loops[1].run()
        #expect(harness.readers[1].runQueries() == 1, "one lookup for both messages")
        harness.settle()
        let updates = ken.peer.take().ofType("session.updated")
        #expect(updates.count == 1)
        #expect((updates.first?["session"] as? [String: Any])?["last_seq"] as? Int == 2)
    }
}
