import Testing

@testable import SwitchboardChatCore

/// Private notes (`kind` `note`): operators and admins send them and get
/// them, live and in a join's replay; a visitor can neither send one nor
/// receive one, and its stream goes on past a note's seq without a gap.
@Suite struct ChatCoreNoteTests {
    private func bodies(_ frames: [[String: Any]]) -> [String] {
        frames.ofType("message").map { $0["body"] as? String ?? "?" }
    }

    @Test func aVisitorMayNotSendANote() {
        let harness = CoreHarness()
        let (vera, session) = harness.visitorWithSession()
        vera.send(["type": "join", "session_id": session])
        harness.settle()
        _ = vera.peer.take()
        vera.send([
            "type": "send", "session_id": session, "client_msg_id": "n", "kind": "note", "body": "psst", "ref": "r",
        ])
        harness.settle()
        #expect(harness.commit() == 0, "nothing was handed to the store")
        let error = vera.peer.take().ofType("error").first
        #expect(error?["code"] as? String == "forbidden" && error?["ref"] as? String == "r")
    }

    @Test func aNoteReachesStaffOnlyAndTheVisitorsStreamGoesOnWithoutAGap() {
        let harness = CoreHarness(loops: 2)
        let vera = harness.connect(.visitor, "v-vera", loop: 0)
        let session = harness.createSession(vera)
        vera.send(["type": "join", "session_id": session])
        let ken = harness.connect(.operator, "op-ken", loop: 1)
        let ada = harness.connect(.admin, "ad-ada", loop: 0)
        for staff in [ken, ada] { staff.send(["type": "join", "session_id": session]) }
        harness.settle()
        for client in [vera, ken, ada] { _ = client.peer.take() }

        ken.send(["type": "send", "session_id": session, "client_msg_id": "n1", "kind": "note", "body": "VIP: refund"])
        harness.commit()
        harness.settle()
        ken.send(["type": "send", "session_id": session, "client_msg_id": "t1", "body": "Your refund is on its way"])
        harness.commit()
        harness.settle()
        let reads = harness.database.messageReads

        #expect(bodies(ken.peer.take()) == ["VIP: refund", "Your refund is on its way"])
        #expect(bodies(ada.peer.take()) == ["VIP: refund", "Your refund is on its way"])
        let seen = vera.peer.take()
        #expect(bodies(seen) == ["Your refund is on its way"])
        #expect(seen.seqs == [2])
        #expect(!seen.contains { ($0["kind"] as? String) == "note" })
        harness.settle()
        #expect(harness.database.messageReads == reads, "no repair was read for the visitor")

        // A join's replay: the visitor's without the note, the operator's with it.
        vera.send(["type": "join", "session_id": session, "since_seq": 0])
        ken.send(["type": "join", "session_id": session, "since_seq": 0])
        harness.settle()
        #expect(bodies(vera.peer.take()) == ["Your refund is on its way"])
        #expect(bodies(ken.peer.take()) == ["VIP: refund", "Your refund is on its way"])

        // A note last: the visitor's replay ends at the session's last seq, so what follows goes straight out.
        ada.send(["type": "send", "session_id": session, "client_msg_id": "n2", "kind": "note", "body": "closing"])
        harness.commit()
        harness.settle()
        vera.send(["type": "join", "session_id": session, "since_seq": 2])
        harness.settle()
        #expect(bodies(vera.peer.take()).isEmpty)
        ken.send(["type": "send", "session_id": session, "client_msg_id": "t2", "body": "Anything else?"])
        harness.commit()
        harness.settle()
        let after = vera.peer.take()
        #expect(bodies(after) == ["Anything else?"] && after.seqs == [4])
    }
}
