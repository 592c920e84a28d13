import Foundation
import SwitchboardAuth
import Testing

/// A visitor and two operators converse in-process over a real PostgreSQL.
@Suite(.serialized) struct ConversationTests {
    @Test func everyoneSeesEveryMessageOnceInOrder() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let ken = try fixture.client(.operator, "op-ken", name: "Ken")
        let ann = try fixture.client(.operator, "op-ann", name: "Ann")
        #expect(try ken.request(["type": "inbox.subscribe"]).type == "inbox")
        let visitor = try fixture.client(.visitor, "v-42", name: "Vera")
        #expect(visitor.welcome["workspace_id"] as? String == fixture.workspace)
        let sessionID = try fixture.createSession(visitor)

        // The subscribed operator hears of the new session.
        let created = try ken.next("session.updated")
        #expect((created["session"] as? [String: Any])?["id"] as? String == sessionID)

        let joined = try fixture.join(ken, sessionID)
        #expect(joined["last_seq"] as? Int == 0 && joined["truncated"] as? Bool == false)
        try fixture.join(ann, sessionID)

        // Everyone sends at once; acks only after the commit, messages to all.
        let perSender = 15
        let senders = [visitor, ken, ann]
        for i in 0..<perSender {
            for (index, sender) in senders.enumerated() {
                sender.send([
                    "type": "send", "ref": "s\(index)-\(i)", "session_id": sessionID,
                    "client_msg_id": "m\(index)-\(i)", "body": "hello \(i) from \(index)",
                ])
            }
        }
        let total = perSender * senders.count
        for (index, participant) in senders.enumerated() {
            var seqs: [Int] = []
            var acks = 0
            while seqs.count < total || acks < perSender {
                let frame = try participant.next()
                switch frame.type {
                case "message": seqs.append(frame.seq ?? -1)
                case "ack":
                    acks += 1
                    #expect(frame["duplicate"] as? Bool == false)
                    #expect((frame["ref"] as? String)?.hasPrefix("s\(index)-") == true)
                // `availability`: the visitor's session waits in routing's queue (docs/routing.md).
                case "session.updated", "typing", "read", "availability": continue
                default: Issue.record("unexpected frame \(frame)")
                }
            }
            #expect(seqs == Array(1...total), "participant \(index) saw \(seqs)")
        }
        #expect(
            try fixture.count("SELECT count(*)::int FROM chats WHERE session_id = $1::uuid", [sessionID]) == total)
    }

    @Test func rejoiningWithSinceSeqReplaysExactlyTheMissedMessages() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let visitor = try fixture.client(.visitor, "v-1")
        let sessionID = try fixture.createSession(visitor)
        var ken: ChatClient? = try fixture.client(.operator, "op-ken", name: "Ken")
        try fixture.join(ken!, sessionID)
        for i in 1...3 {
            let ack = try visitor.request([
                "type": "send", "session_id": sessionID, "client_msg_id": "a\(i)", "body": "before \(i)",
            ])
            #expect(ack.type == "ack" && ack.seq == i)
        }
        for i in 1...3 { #expect(try ken!.next("message").seq == i) }
        ken = nil  // disconnects
        for i in 4...7 {
            #expect(
                try visitor.request(["type": "send", "session_id": sessionID, "client_msg_id": "a\(i)", "body": "x"])
                    .seq
                    == i)
        }
        let back = try fixture.client(.operator, "op-ken", name: "Ken")
        let joined = try fixture.join(back, sessionID, since: 3)
        #expect(joined["last_seq"] as? Int == 7 && joined["truncated"] as? Bool == false)
        var replayed: [Int] = []
        for _ in 4...7 { replayed.append(try back.next("message").seq ?? -1) }
        #expect(replayed == [4, 5, 6, 7])
        // Live again: the next message arrives once, with nothing replayed twice.
        #expect(
            try visitor.request(["type": "send", "session_id": sessionID, "client_msg_id": "a8", "body": "y"]).seq == 8)
        #expect(try back.next("message").seq == 8)
    }

    @Test func replayIsBoundedAndFlaggedTruncated() throws {
        let fixture = try ChatFixture { $0.chatReplayLimit = 3 }
        defer { fixture.stop() }
        let visitor = try fixture.client(.visitor, "v-1")
        let sessionID = try fixture.createSession(visitor)
        for i in 1...5 {
            _ = try visitor.request(["type": "send", "session_id": sessionID, "client_msg_id": "t\(i)", "body": "b"])
        }
        let reader = try fixture.client(.operator, "op-1")
        let joined = try fixture.join(reader, sessionID, since: 0)
        #expect(joined["truncated"] as? Bool == true && joined["last_seq"] as? Int == 5)
        #expect(try (0..<3).map { _ in try reader.next("message").seq ?? -1 } == [3, 4, 5])
    }

    @Test func aRetriedClientMessageIDIsStoredAndBroadcastOnce() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let visitor = try fixture.client(.visitor, "v-1")
        let sessionID = try fixture.createSession(visitor)
        let ken = try fixture.client(.operator, "op-ken")
        try fixture.join(ken, sessionID)
        let send: [String: Any] = ["type": "send", "session_id": sessionID, "client_msg_id": "same", "body": "once"]
        let first = try visitor.request(send)
        let second = try visitor.request(send)
        #expect(first.type == "ack" && first["duplicate"] as? Bool == false)
        #expect(second.type == "ack" && second["duplicate"] as? Bool == true)
        #expect(first.seq == second.seq && first["id"] as? String == second["id"] as? String)
        _ = try visitor.request(["type": "send", "session_id": sessionID, "client_msg_id": "next", "body": "marker"])
        #expect(try ken.next("message")["body"] as? String == "once")
        #expect(try ken.next("message")["body"] as? String == "marker")
        #expect(
            try fixture.count(
                "SELECT count(*)::int FROM chats WHERE session_id = $1::uuid AND client_msg_id = 'same'", [sessionID])
                == 1)
    }

    @Test func typingIsNotStoredAndReadIs() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let visitor = try fixture.client(.visitor, "v-1", name: "Vera")
        let sessionID = try fixture.createSession(visitor)
        let ken = try fixture.client(.operator, "op-ken", name: "Ken")
        try fixture.join(ken, sessionID)
        visitor.send(["type": "typing", "session_id": sessionID, "state": true])
        let typing = try ken.next("typing")
        #expect(typing["state"] as? Bool == true && (typing["sender"] as? [String: Any])?["id"] as? String == "v-1")
        _ = try visitor.request(["type": "send", "session_id": sessionID, "client_msg_id": "m1", "body": "hi"])
        ken.send(["type": "read", "session_id": sessionID, "seq": 1])
        let read = try visitor.next("read")
        #expect(read.seq == 1 && (read["reader"] as? [String: Any])?["id"] as? String == "op-ken")
        #expect(try ken.next("read").seq == 1)
        #expect(try fixture.count("SELECT count(*)::int FROM chats WHERE session_id = $1::uuid", [sessionID]) == 1)
        #expect(
            try fixture.count(
                "SELECT seq::int FROM chat_read_positions WHERE session_id = $1::uuid AND reader_id = 'op-ken'",
                [sessionID]) == 1)
    }

    @Test func assignAndCloseReachTheSessionAndTheInbox() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let ann = try fixture.client(.operator, "op-ann", name: "Ann")
        _ = try ann.request(["type": "inbox.subscribe"])
        let visitor = try fixture.client(.visitor, "v-1")
        let sessionID = try fixture.createSession(visitor)
        _ = try ann.next("session.updated")
        let ken = try fixture.client(.operator, "op-ken", name: "Ken")
        let assigned = try ken.request(["type": "session.assign", "session_id": sessionID])
        let session = assigned["session"] as? [String: Any]
        #expect(assigned.type == "session.updated" && session?["status"] as? String == "assigned")
        #expect((session?["assigned_operator"] as? [String: Any])?["name"] as? String == "Ken")
        #expect(
            ((try visitor.next("session.updated"))["session"] as? [String: Any])?["status"] as? String == "assigned")
        #expect(((try ann.next("session.updated"))["session"] as? [String: Any])?["status"] as? String == "assigned")
        // A message updates the inbox too.
        _ = try visitor.request(["type": "send", "session_id": sessionID, "client_msg_id": "m1", "body": "hi"])
        let update = try ann.next("session.updated")["session"] as? [String: Any]
        #expect(update?["last_seq"] as? Int == 2, "the assignment's system line is seq 1")
        #expect((update?["last_message"] as? [String: Any])?["body"] as? String == "hi")
        let closed = try visitor.request(["type": "session.close", "session_id": sessionID])
        #expect((closed["session"] as? [String: Any])?["status"] as? String == "closed")
        #expect(((try ann.next("session.updated"))["session"] as? [String: Any])?["status"] as? String == "closed")
    }

    @Test func pingGetsPongAndBadFramesKeepTheConnection() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let visitor = try fixture.client(.visitor, "v-1")
        #expect(try visitor.request(["type": "ping"]).type == "pong")
        visitor.sendText("{not json")
        #expect(try visitor.next("error").code == "bad_request")
        #expect(try visitor.request(["type": "no.such.type"]).code == "bad_request")
        #expect(try visitor.request(["type": "join"]).code == "bad_request")
        let body = String(repeating: "x", count: 8193)
        let sessionID = try fixture.createSession(visitor)
        #expect(
            try visitor.request(["type": "send", "session_id": sessionID, "client_msg_id": "big", "body": body]).code
                == "too_large")
        #expect(try visitor.request(["type": "ping"]).type == "pong")
    }
}
