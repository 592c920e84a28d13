import SwitchboardAttachments
import SwitchboardChat
import Testing

@testable import SwitchboardChatCore

/// Sends with attachments (docs/protocol.md, "Attachments"): the ids reach
/// the store, the stored objects reach every subscriber with URLs signed as
/// the frame is encoded, and the store's refusal is answered.
@Suite struct ChatCoreAttachmentTests {
    static let photo = AttachmentObject(
        id: "0f3c0000-0000-4000-8000-000000000001", filename: "receipt.png", contentType: "image/png", size: 48_213,
        sha256: String(repeating: "9b", count: 32), width: 800, height: 600, hasThumbnail: true)
    static let notes = AttachmentObject(
        id: "0f3c0000-0000-4000-8000-000000000002", filename: "notes.txt", contentType: "text/plain", size: 12,
        sha256: String(repeating: "0f", count: 32))
    static let signer = AttachmentURLSigner(jwtSecret: Array(CoreHarness.secret.utf8))

    /// The protocol's object for `object` with URLs that expire at `expires`.
    private func expected(_ object: AttachmentObject, expires: Int64) -> [String: String] {
        var fields = [
            "id": object.id, "filename": object.filename, "content_type": object.contentType,
            "size": String(object.size), "sha256": object.sha256,
            "url": Self.signer.path(id: object.id, variant: .original, expires: expires),
        ]
        if let width = object.width, let height = object.height {
            fields["width"] = String(width)
            fields["height"] = String(height)
        }
        if object.hasThumbnail {
            fields["thumbnail_url"] = Self.signer.path(id: object.id, variant: .thumbnail, expires: expires)
        }
        return fields
    }

    /// A frame's attachments, every value as text, so that they compare with `expected`.
    private func attachments(_ frame: [String: Any]?) -> [[String: String]]? {
        (frame?["attachments"] as? [[String: Any]])?.map { $0.mapValues { "\($0)" } }
    }

    @Test func aSendWithAttachmentsReachesEverySubscriberWithSignedURLs() {
        let harness = CoreHarness(loops: 2) { $0.attachmentURLTTLSeconds = 600 }
        let (visitor, session) = harness.visitorWithSession()
        harness.database.upload(Self.photo, to: session, by: "visitor", "v-1")
        harness.database.upload(Self.notes, to: session, by: "visitor", "v-1")
        visitor.send(["type": "join", "session_id": session])
        let operatorClient = harness.connect(.operator, "op-1", loop: 1)
        operatorClient.send(["type": "join", "session_id": session])
        harness.settle()
        _ = visitor.peer.take()
        _ = operatorClient.peer.take()

        // An empty body is fine with attachments; ids in any case, in the sender's order.
        visitor.send([
            "type": "send", "session_id": session, "client_msg_id": "a1", "body": "", "ref": "r1",
            "attachments": [Self.notes.id.uppercased(), Self.photo.id],
        ])
        #expect(harness.database.pending.map(\.attachmentIDs) == [[Self.notes.id, Self.photo.id]])
        harness.commit()
        harness.settle()

        let expires = harness.wallClock.seconds + 600
        let wanted = [expected(Self.notes, expires: expires), expected(Self.photo, expires: expires)]
        let visitorFrames = visitor.peer.take()
        let ack = visitorFrames.ofType("ack").first
        #expect(ack?["ref"] as? String == "r1")
        #expect(attachments(visitorFrames.ofType("message").first) == wanted)
        let delivered = operatorClient.peer.take().ofType("message")
        #expect(delivered.count == 1)
        #expect(delivered.first?["body"] as? String == "")
        #expect(attachments(delivered.first) == wanted, "the other loop's subscriber gets the same objects")
        #expect(harness.database.messageID(ofUpload: Self.photo.id) == ack?["id"] as? String)
    }

    @Test func aJoinsReplaySignsTheURLsAnew() {
        let harness = CoreHarness()
        let (visitor, session) = harness.visitorWithSession()
        harness.database.upload(Self.photo, to: session, by: "visitor", "v-1")
        visitor.send([
            "type": "send", "session_id": session, "client_msg_id": "a1", "body": "the receipt",
            "attachments": [Self.photo.id],
        ])
        harness.commit()
        harness.settle()

        // An hour later a colleague opens the conversation: its URLs count from now.
        harness.wallClock.seconds += 3_000
        let operatorClient = harness.connect(.operator, "op-1")
        operatorClient.send(["type": "join", "session_id": session, "since_seq": 0])
        harness.settle()
        let replayed = operatorClient.peer.take().ofType("message")
        #expect(replayed.count == 1)
        #expect(attachments(replayed.first) == [expected(Self.photo, expires: harness.wallClock.seconds + 3600)])
    }

    @Test(arguments: [
        ("another visitor's upload", "visitor", "v-2", false, false),
        ("an operator's upload", "operator", "v-1", false, false),
        ("an upload to another session", "visitor", "v-1", true, false),
        ("an upload sent already", "visitor", "v-1", false, true),
    ])
    func sendingAnUploadThatIsNotYoursToSendIsRefused(
        case name: String, role: String, uploader: String, elsewhere: Bool, sentBefore: Bool
    ) {
        let harness = CoreHarness()
        let (visitor, session) = harness.visitorWithSession()
        let other = harness.createSession(visitor, title: "Another")
        harness.database.upload(Self.photo, to: elsewhere ? other : session, by: role, uploader)
        visitor.send(["type": "join", "session_id": session])
        harness.settle()
        if sentBefore {
            visitor.send([
                "type": "send", "session_id": session, "client_msg_id": "first", "body": "b",
                "attachments": [Self.photo.id],
            ])
            harness.commit()
            harness.settle()
        }
        _ = visitor.peer.take()

        visitor.send([
            "type": "send", "session_id": session, "client_msg_id": "a1", "body": "look", "ref": "r9",
            "attachments": [Self.photo.id],
        ])
        harness.commit()
        harness.settle()
        let frames = visitor.peer.take()
        #expect(frames.types == ["error"], "\(name): answered, nothing delivered")
        #expect(frames.first?["code"] as? String == "bad_request")
        #expect(frames.first?["ref"] as? String == "r9")
        #expect(
            frames.first?["message"] as? String
                == "attachment \(Self.photo.id) is not an upload of yours to session \(session) "
                + "that no message has sent yet; nothing was stored")
    }

    @Test func aMessageWithoutAttachmentsHasNoAttachmentsMember() {
        let harness = CoreHarness()
        let (visitor, session) = harness.visitorWithSession()
        visitor.send(["type": "join", "session_id": session])
        visitor.send(["type": "send", "session_id": session, "client_msg_id": "m1", "body": "hi"])
        #expect(harness.database.pending.map(\.attachmentIDs) == [[]])
        harness.commit()
        harness.settle()
        let message = visitor.peer.take().ofType("message").first
        #expect(message?["body"] as? String == "hi")
        #expect(message?["attachments"] == nil)
    }
}
