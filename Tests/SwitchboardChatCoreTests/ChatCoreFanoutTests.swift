import Testing

@testable import SwitchboardChatCore

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
        // The assignment is a system line at seq 2; the preview stays what the visitor wrote.
        #expect(sessions.map { $0["last_seq"] as? Int } == [0, 1, 2])
        #expect(((sessions[1]["last_message"] as? [String: Any])?["body"] as? String) == "need help")
        #expect(frames.map { $0["ref"] as? String } == [nil, nil, "a"], "the assigner gets its answer once")
        #expect(sessions[2]["status"] as? String == "assigned")
        #expect(((sessions[2]["last_message"] as? [String: Any])?["body"] as? String) == "need help")
        #expect(stranger.peer.take().isEmpty, "another workspace's inbox hears nothing")
        let heard = vera.peer.take()
        #expect(heard.ofType("session.updated").count == 1, "the session's own subscriber hears of the assignment")
        let events = heard.ofType("message").filter { $0["kind"] as? String == "event" }
        #expect(events.map { $0["seq"] as? Int } == [2], "and gets its system line, in the session's sequence")
    }

    @Test func theInboxGetsTheWritersStateOfTheSessionWithoutAQuery() {
        let harness = CoreHarness(loops: 2)
        let (vera, session) = harness.visitorWithSession()
        let ken = harness.connect(.operator, "op-ken", name: "Ken", loop: 1)
        ken.send(["type": "inbox.subscribe"])
        harness.settle()
        _ = ken.peer.take()
        vera.send(["type": "send", "session_id": session, "client_msg_id": "m1", "body": "first"])
        vera.send(["type": "send", "session_id": session, "client_msg_id": "m2", "body": "second"])
        harness.commit()
        harness.loops[1].run()
        #expect(harness.readers[1].runQueries() == 0, "the batch carries the session's state")
        let updates = ken.peer.take().ofType("session.updated")
        #expect(updates.count == 1, "one update per session and batch")
        let state = updates.first?["session"] as? [String: Any]
        #expect(state?["last_seq"] as? Int == 2)
        #expect((state?["last_message"] as? [String: Any])?["body"] as? String == "second")
        #expect(state?["version"] as? Int == harness.database.sessions[session].map { Int($0.version) })
    }

    @Test func anOlderStateNeverFollowsANewerOne() {
        let harness = CoreHarness(loops: 2)
        let (vera, session) = harness.visitorWithSession()
        let ken = harness.connect(.operator, "op-ken", name: "Ken", loop: 1)
        ken.send(["type": "inbox.subscribe"])
        ken.send(["type": "join", "session_id": session])
        harness.settle()
        _ = ken.peer.take()
        // The assignment is stored (version n); then a message commits (n + 1) and
        // reaches loop 1 before the assignment's answer does.
        ken.send(["type": "session.assign", "session_id": session, "ref": "a"])
        harness.readers[1].runQueries(postAnswers: false)
        vera.send(["type": "send", "session_id": session, "client_msg_id": "m1", "body": "hello"])
        harness.commit()
        harness.loops[1].run()
        harness.readers[1].postAnswers()
        harness.settle()
        let updates = ken.peer.take().ofType("session.updated")
        let versions = updates.compactMap { ($0["session"] as? [String: Any])?["version"] as? Int }
        #expect(versions.count == 2)
        #expect(versions == versions.sorted(), "versions only grow: \(versions)")
        let answer = updates.first { $0["ref"] as? String == "a" }?["session"] as? [String: Any]
        #expect(answer?["status"] as? String == "assigned")
        // The assignment's event took seq 1, the message seq 2.
        #expect(answer?["last_seq"] as? Int == 2, "the answer is the newest state, the message included")
    }
}
