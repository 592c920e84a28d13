import Foundation
import SwitchboardAuth
import Testing

@testable import SwitchboardChatCore

/// Session changes as the core tells them: each change's stored event goes
/// to the session's subscribers in seq order with the messages, on every
/// loop, and its new state to the workspace's inboxes (over the fakes).
@Suite struct ChatCoreEventTests {
    @Test func aVisitorMessageOnAClosedSessionReopensItForEveryInbox() {
        let harness = CoreHarness(loops: 2)
        let (vera, session) = harness.visitorWithSession()
        let ken = harness.connect(.operator, "op-ken", name: "Ken", loop: 1)
        ken.send(["type": "inbox.subscribe"])
        ken.send(["type": "join", "session_id": session])
        harness.settle()
        ken.send(["type": "session.close", "session_id": session])
        harness.settle()
        _ = ken.peer.take()
        _ = vera.peer.take()

        vera.send(["type": "send", "session_id": session, "client_msg_id": "m1", "body": "Still broken"])
        harness.commit()
        harness.settle()

        let heard = ken.peer.take()
        // The event first, then the message: one sequence, no gap for the subscription to repair.
        #expect(heard.seqs == [2, 3])
        #expect(heard.ofType("message").map { $0["kind"] as? String } == ["event", "text"])
        let state = heard.ofType("session.updated").last?["session"] as? [String: Any]
        #expect(state?["status"] as? String == "open")
        #expect(state?["assigned_operator"] is NSNull)
        #expect(vera.peer.take().seqs == [2, 3], "the visitor sees the same story")
    }

    @Test func aTakeOverReachesThePreviousAssigneeOnAnotherLoop() {
        let harness = CoreHarness(loops: 2)
        let (_, session) = harness.visitorWithSession()
        let ben = harness.connect(.operator, "op-ben", name: "Ben", loop: 1)
        let olga = harness.connect(.operator, "op-olga", name: "Olga", loop: 0)
        ben.send(["type": "inbox.subscribe"])
        ben.send(["type": "join", "session_id": session])
        ben.send(["type": "session.assign", "session_id": session])
        harness.settle()
        _ = ben.peer.take()

        olga.send(["type": "session.assign", "session_id": session, "ref": "take"])
        harness.settle()

        let heard = ben.peer.take()
        let event = heard.ofType("message").first
        #expect(event?["kind"] as? String == "event" && event?["seq"] as? Int == 2)
        let updates = heard.ofType("session.updated").map { $0["session"] as? [String: Any] }
        #expect(!updates.isEmpty)
        #expect(
            updates.allSatisfy { ($0?["assigned_operator"] as? [String: Any])?["id"] as? String == "op-olga" },
            "Ben learns who took it")
        #expect(olga.peer.take().ofType("session.updated").first?["ref"] as? String == "take")
    }

    @Test func aChangeThatChangesNothingStoresNoEvent() {
        let harness = CoreHarness()
        let (vera, session) = harness.visitorWithSession()
        let ken = harness.connect(.operator, "op-ken", name: "Ken")
        ken.send(["type": "session.assign", "session_id": session])
        harness.settle()
        ken.send(["type": "session.assign", "session_id": session])
        harness.settle()
        #expect(vera.peer.take().ofType("message").count == 1, "one assignment, one line")
        #expect(harness.database.sessions[session]?.lastSeq == 1)
    }

    @Test func clientsCannotWriteEvents() {
        let harness = CoreHarness()
        let (vera, session) = harness.visitorWithSession()
        vera.send(["type": "send", "session_id": session, "client_msg_id": "x", "body": "Ken joined", "kind": "event"])
        harness.settle()
        #expect(vera.peer.take().ofType("error").first?["code"] as? String == "forbidden")
        #expect(harness.database.pending.isEmpty, "nothing reached the writer")
    }
}
