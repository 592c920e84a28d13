import SwitchboardAttachments
import SwitchboardChat
import Testing

@testable import SwitchboardServer

/// The transcript's rendering: who wrote what and when, notes marked,
/// attachments by name and size, and every text escaped in the HTML page.
@Suite struct TranscriptTests {
    private let session = SessionInfo(
        id: "6f1c2a4e-0000-4000-8000-000000000001", workspaceID: "w", visitorID: "v-1",
        title: "Broken <parcel> & co", status: .closed, assignedOperator: nil, lastSeq: 4, lastMessage: nil,
        createdAt: "2026-11-25T09:00:00.000Z", updatedAt: "2026-11-25T09:05:00.000Z", version: 3)

    private func message(_ seq: Int64, _ kind: String, _ body: String, _ sender: Participant) -> ChatMessage {
        ChatMessage(
            id: "m\(seq)", sessionID: session.id, seq: seq, clientMessageID: "c\(seq)", kind: kind, body: body,
            sender: sender, createdAt: "2026-11-25T09:0\(seq):30.123Z")
    }

    private var messages: [ChatMessage] {
        let vera = Participant(id: "v-1", role: "visitor", name: "Vera")
        let ken = Participant(id: "op-ken", role: "operator", name: "Ken")
        var photo = message(1, "text", "It came broken\nsee the photo", vera)
        photo.attachments = [
            AttachmentObject(
                id: "a1", filename: "box.jpg", contentType: "image/jpeg", size: 183_500, sha256: "00",
                width: 800, height: 600, hasThumbnail: true)
        ]
        return [
            photo, message(2, "note", "<b>VIP</b> refund", ken), message(3, "text", "Refunded", ken),
            message(
                4, "event", "Ken closed the conversation", Participant(id: "op-ken", role: "operator", name: "Ken")),
        ]
    }

    @Test func textHasOneLinePerMessageNotesMarkedAndFilesListed() {
        let text = Transcript(session: session, messages: messages, truncated: false).render(.text)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "Broken <parcel> & co")
        #expect(lines[1] == "Conversation \(session.id), opened 2026-11-25 09:00 UTC, closed")
        #expect(lines[3] == "[2026-11-25 09:01 UTC] Vera (visitor): It came broken")
        #expect(lines[4] == "    see the photo")
        #expect(lines[5] == "    Attachment: box.jpg (179 KB)")
        #expect(lines[6] == "[2026-11-25 09:02 UTC] Ken (operator) [private note]: <b>VIP</b> refund")
        #expect(lines[7] == "[2026-11-25 09:03 UTC] Ken (operator): Refunded")
        #expect(lines[8] == "[2026-11-25 09:04 UTC] — Ken closed the conversation")
        #expect(!text.contains("stops here"))
        #expect(Transcript(session: session, messages: messages, truncated: true).render(.text).contains("stops here"))
    }

    @Test func htmlEscapesEveryTextAndMarksNotes() {
        let html = Transcript(session: session, messages: messages, truncated: false).render(.html)
        #expect(html.contains("<title>Broken &lt;parcel&gt; &amp; co</title>"))
        #expect(html.contains("&lt;b&gt;VIP&lt;/b&gt; refund"))
        #expect(!html.contains("<b>VIP"))
        #expect(html.contains("<li class=\"note\">") && html.contains("Ken (operator) · Private note"))
        #expect(html.contains("Attachment: box.jpg (179 KB)"))
        #expect(!html.contains("<script"))
    }

    @Test func sizesAndTimesReadAsAPersonWouldSay() {
        #expect(Transcript.size(900) == "900 bytes")
        #expect(Transcript.size(2048) == "2 KB")
        #expect(Transcript.size(5 * 1024 * 1024 + 300_000) == "5.3 MB")
        #expect(Transcript.time("2026-11-25T23:59:59.999Z") == "2026-11-25 23:59 UTC")
        #expect(Transcript.time("yesterday") == "yesterday")
    }
}
