import SwitchboardWriter
import Testing

@testable import SwitchboardChatCore

/// Sends are acked only after their commit, in order, each once; the store's
/// refusals are answered at once.
@Suite struct ChatCoreSendTests {
    @Test func acksComeAfterTheCommitInSendOrder() {
        let harness = CoreHarness()
        let (visitor, session) = harness.visitorWithSession()
        for index in 1...3 {
            visitor.send([
                "type": "send", "session_id": session, "client_msg_id": "m\(index)", "body": "b\(index)",
                "ref": "r\(index)",
            ])
        }
        #expect(visitor.peer.frames.isEmpty, "no ack before the commit")
        #expect(harness.commit() == 3)
        harness.settle()
        let frames = visitor.peer.take()
        let acks = frames.ofType("ack")
        #expect(acks.map { $0["ref"] as? String } == ["r1", "r2", "r3"])
        #expect(acks.map { $0["seq"] as? Int } == [1, 2, 3])
        #expect(acks.allSatisfy { $0["duplicate"] as? Bool == false })
        #expect(frames.seqs == [1, 2, 3], "the sender is joined, so it gets its messages too")
        #expect(frames.types.prefix(3) == ["ack", "ack", "ack"], "a batch's acks go before its messages")
    }

    @Test func aCommittedBatchIsTimedStageByStage() {
        let harness = CoreHarness(loops: 2)
        let (visitor, session) = harness.visitorWithSession()
        let operatorClient = harness.connect(.operator, "op-1", loop: 1)
        operatorClient.send(["type": "join", "session_id": session])
        harness.settle()
        for index in 1...2 {
            visitor.send(["type": "send", "session_id": session, "client_msg_id": "t\(index)", "body": "b"])
        }
        // As the writer's sink does: its stages on its thread, then every core.
        let batch = harness.database.commitPending()
        harness.metrics.count(batch)
        harness.cores.everyCore(fromDatabaseThread: { $0.committed(batch) })
        harness.settle()
        let stages = harness.metrics.sendStages
        #expect(stages.count(.receive) == 2)
        #expect(stages.count(.queue) == 2)
        #expect(stages.count(.commit) == 2)
        #expect(stages.count(.handoff) == 4, "two messages, seen by each of the two loops")
        #expect(stages.count(.deliver) == 4)
        #expect(stages.count(.total) == 2, "only the sender's loop times its sends to their acks")
        #expect(operatorClient.peer.take().ofType("message").count == 2)
    }

    @Test func aRetryIsAckedAsADuplicateAndNotBroadcastAgain() {
        let harness = CoreHarness()
        let (visitor, session) = harness.visitorWithSession()
        let frame: [String: Any] = ["type": "send", "session_id": session, "client_msg_id": "same", "body": "hi"]
        visitor.send(frame)
        harness.commit()
        harness.settle()
        _ = visitor.peer.take()
        visitor.send(frame)
        harness.commit()
        harness.settle()
        let frames = visitor.peer.take()
        #expect(frames.types == ["ack"])
        #expect(frames.first?["duplicate"] as? Bool == true && frames.first?["seq"] as? Int == 1)
    }

    @Test(arguments: [
        (SubmitOutcomeCase.overloaded, "overloaded"), (.unavailable, "unavailable"), (.invalid, "bad_request"),
    ])
    func refusalsAreAnsweredAtOnce(refusal: SubmitOutcomeCase, code: String) {
        let harness = CoreHarness()
        let (visitor, session) = harness.visitorWithSession()
        harness.database.refuseSubmits = refusal.outcome
        visitor.send(["type": "send", "session_id": session, "client_msg_id": "m1", "body": "hi", "ref": "r1"])
        let frames = visitor.peer.take()
        #expect(frames.map { $0["code"] as? String } == [code])
        #expect(frames.first?["ref"] as? String == "r1")
        #expect(harness.commit() == 0)
    }

    @Test func aSendToAGoneSessionIsNotFoundAndAClosedSenderIsSkipped() {
        let harness = CoreHarness()
        let (visitor, session) = harness.visitorWithSession()
        let other = harness.connect(.visitor, "v-2")
        let otherSession = harness.createSession(other)
        visitor.send(["type": "send", "session_id": session, "client_msg_id": "m1", "body": "hi", "ref": "r1"])
        other.send(["type": "send", "session_id": otherSession, "client_msg_id": "m1", "body": "hi"])
        other.close()
        harness.database.forget(session)
        harness.commit()
        harness.settle()
        #expect(visitor.peer.take().map { $0["code"] as? String } == ["not_found"])
        #expect(other.peer.take().isEmpty, "a connection closed before its commit is answered to nobody")
        #expect(harness.database.messages[otherSession]?.count == 1, "its message is stored all the same")
    }
}

/// `SubmitOutcome` for test arguments (its `invalid` carries a reason).
enum SubmitOutcomeCase: Sendable, CustomStringConvertible {
    case overloaded, unavailable, invalid

    var outcome: SubmitOutcome {
        switch self {
        case .overloaded: .overloaded
        case .unavailable: .unavailable
        case .invalid: .invalid("session_id is not a UUID")
        }
    }

    var description: String { "\(outcome)" }
}
