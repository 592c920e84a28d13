import SwitchboardAttachments
import SwitchboardChat
import Synchronization
import Testing

private let photoID = "0f3c0000-0000-4000-8000-000000000001"
private let notesID = "0f3c0000-0000-4000-8000-000000000002"
private let sha = String(repeating: "9b", count: 32)

private let photo = AttachmentObject(
    id: photoID, filename: "receipt \"1\".png", contentType: "image/png", size: 48_213, sha256: sha, width: 800,
    height: 600, hasThumbnail: true)
private let notes = AttachmentObject(
    id: notesID, filename: "notes.txt", contentType: "text/plain", size: 12, sha256: sha)

private let signer = AttachmentURLSigner(jwtSecret: Array("frame-tests-secret-of-at-least-32-bytes".utf8))

/// A clock that moves one second each time it is read: a frame whose URLs all
/// carry one expiry read it once.
private final class TickingClock: Sendable {
    private let now = Atomic<Int64>(1_764_000_000)
    func read() -> Int64 { now.add(1, ordering: .relaxed).newValue - 1 }
}

private func send(_ attachments: String, body: String = "\"\"") -> String {
    #"{"type":"send","ref":"s","session_id":"\#(sessionUUID)","client_msg_id":"c","body":\#(body),"attachments":\#(attachments)}"#
}

/// `send` frames with `attachments`: the decoder's limits and the empty body's rule.
@Suite struct AttachmentSendDecodingTests {
    @Test func takesUpToTenDistinctIDsLowerCasedInOrder() {
        #expect(
            accepted(send(#"["\#(notesID.uppercased())","\#(photoID)"]"#))?.frame
                == .send(
                    sessionID: sessionUUID, clientMessageID: "c", body: "", kind: "text",
                    attachments: [notesID, photoID]))
        let ten = (0..<10).map { "0f3c0000-0000-4000-8000-00000000000\($0)" }
        let list = "[" + ten.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        #expect(
            accepted(send(list, body: "\"with words\""))?.frame
                == .send(
                    sessionID: sessionUUID, clientMessageID: "c", body: "with words", kind: "text", attachments: ten))
    }

    @Test func absentNullOrEmptyIsNoAttachmentsAndTheBodyMustSaySomething() {
        let plain = ClientFrame.send(sessionID: sessionUUID, clientMessageID: "c", body: "b", kind: "text")
        #expect(accepted(send("null", body: "\"b\""))?.frame == plain)
        #expect(accepted(send("[]", body: "\"b\""))?.frame == plain)
        for empty in ["[]", "null"] {
            let error = refused(send(empty))
            #expect(error?.code == .badRequest)
            #expect(error?.message == #""body" must not be empty (unless the message has attachments)"#)
        }
        // An empty body is fine only as an empty string: the member itself is still required.
        #expect(
            refused(
                #"{"type":"send","ref":"s","session_id":"\#(sessionUUID)","client_msg_id":"c","attachments":["\#(photoID)"]}"#
            )?
            .message == #""body" is required"#)
    }

    @Test(arguments: [
        (send(#""\#(photoID)""#), #""attachments" must be an array of attachment ids"#),
        (send(#"{"id":"\#(photoID)"}"#), #""attachments" must be an array of attachment ids"#),
        (send(#"["\#(photoID)",7]"#), #""attachments"[1] must be an attachment id (a UUID)"#),
        (send(#"["\#(photoID)",null]"#), #""attachments"[1] must be an attachment id (a UUID)"#),
        (send(#"["x"]"#), #""attachments"[0] must be an attachment id (a UUID)"#),
        (send(#"["{\#(photoID)}"]"#), #""attachments"[0] must be an attachment id (a UUID)"#),
        (
            send(#"["\#(photoID)","\#(notesID)","\#(photoID.uppercased())"]"#),
            #""attachments" lists attachment \#(photoID) twice"#
        ),
        (
            send(
                "[" + (0...10).map { #""0f3c0000-0000-4000-8000-0000000000\#($0 + 10)""# }.joined(separator: ",") + "]"),
            #""attachments" holds 11 ids; a message may carry at most 10"#
        ),
    ])
    func refusesWhatIsNotAListOfDistinctIDs(frame: String, message: String) {
        let error = refused(frame)
        #expect(error?.code == .badRequest)
        #expect(error?.ref == "s")
        #expect(error?.message == message)
    }

    @Test func theBodyLimitStillHolds() {
        let error = refused(send(#"["\#(photoID)"]"#, body: "\"\(String(repeating: "b", count: 17))\""))
        #expect(error?.code == .tooLarge)
    }
}

/// `message` frames and history pages with attachments: the protocol's objects with URLs signed at encoding.
@Suite struct AttachmentEncodingTests {
    private let message = ChatMessage(
        id: "01930000-0000-7000-8000-000000000001", sessionID: sessionUUID, seq: 7, clientMessageID: "c7",
        kind: "text", body: "", sender: Participant(id: "v-42", role: "visitor", name: "Ann"),
        createdAt: "2026-11-22T08:00:01.234Z", attachments: [photo, notes])

    private func sig(_ id: String, _ variant: AttachmentVariant, _ expires: Int64) -> String {
        signer.signature(id: id, variant: variant, expires: expires)
    }

    @Test func aMessageFrameCarriesTheObjectsWithURLsValidForTheTTL() {
        var encoder = ServerFrameEncoder(
            attachmentLinks: AttachmentLinks(signer: signer, ttlSeconds: 3600, clock: { 1_764_000_000 }))
        let e: Int64 = 1_764_003_600
        let expected =
            #"{"type":"message","session_id":"\#(sessionUUID)","seq":7,"id":"01930000-0000-7000-8000-000000000001","client_msg_id":"c7","kind":"text","body":"","sender":{"id":"v-42","role":"visitor","name":"Ann"},"created_at":"2026-11-22T08:00:01.234Z","attachments":["#
            + #"{"id":"\#(photoID)","filename":"receipt \"1\".png","content_type":"image/png","size":48213,"sha256":"\#(sha)","width":800,"height":600,"url":"/api/v1/attachments/\#(photoID)?exp=\#(e)&sig=\#(sig(photoID, .original, e))","thumbnail_url":"/api/v1/attachments/\#(photoID)/thumbnail?exp=\#(e)&sig=\#(sig(photoID, .thumbnail, e))"},"#
            + #"{"id":"\#(notesID)","filename":"notes.txt","content_type":"text/plain","size":12,"sha256":"\#(sha)","url":"/api/v1/attachments/\#(notesID)?exp=\#(e)&sig=\#(sig(notesID, .original, e))"}]}"#
        #expect(String(decoding: encoder.message(message), as: UTF8.self) == expected)
        #expect(
            signer.verify(id: photoID, variant: .thumbnail, expires: e, signature: sig(photoID, .thumbnail, e), now: e)
                == .valid)
    }

    @Test func theClockIsReadOncePerFrameAndOncePerPage() {
        let clock = TickingClock()
        var encoder = ServerFrameEncoder(
            attachmentLinks: AttachmentLinks(signer: signer, ttlSeconds: 60, clock: { clock.read() }))
        let first = String(decoding: encoder.message(message), as: UTF8.self)
        #expect(first.ranges(of: "exp=1764000060&").count == 3, "one expiry for the frame's three URLs")
        let second = String(decoding: encoder.message(message), as: UTF8.self)
        #expect(second.ranges(of: "exp=1764000061&").count == 3, "the next frame reads the clock again")

        var plain = message
        plain.attachments = []
        let page = String(
            decoding: encoder.messagesPage(sessionID: sessionUUID, [plain, message, message], nextAfterSeq: nil),
            as: UTF8.self)
        #expect(page.ranges(of: "exp=1764000062&").count == 6, "one expiry for the whole page")
        #expect(page.ranges(of: "\"attachments\"").count == 2, "none on the message without attachments")
    }

    @Test func aMessageWithoutAttachmentsIsEncodedAsBefore() {
        var plain = message
        plain.attachments = []
        plain.body = "hi"
        var withLinks = ServerFrameEncoder(
            attachmentLinks: AttachmentLinks(signer: signer, ttlSeconds: 3600, clock: { 0 }))
        var withoutLinks = ServerFrameEncoder()
        #expect(withLinks.message(plain) == withoutLinks.message(plain))
        #expect(!String(decoding: withLinks.message(plain), as: UTF8.self).contains("attachments"))
    }

    @Test func anExpiryPastTheEndOfTimeSaturates() {
        let links = AttachmentLinks(signer: signer, ttlSeconds: 3600, clock: { .max - 10 })
        #expect(links.expiry() == .max)
    }
}
