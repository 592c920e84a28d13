import SwitchboardAttachments
import SwitchboardChat
import SwitchboardReaders
import Testing

/// Every read of messages carries what each sent (`chats.attachments`, migration 12).
@Suite struct AttachmentQueryTests {
    static let photo = AttachmentObject(
        id: "0f3c0000-0000-4000-8000-000000000001", filename: "receipt.png", contentType: "image/png", size: 48_213,
        sha256: String(repeating: "0f", count: 32), width: 800, height: 600, hasThumbnail: true)
    static let notes = AttachmentObject(
        id: "0f3c0000-0000-4000-8000-000000000002", filename: "notes.txt", contentType: "text/plain", size: 12,
        sha256: String(repeating: "0f", count: 32))

    /// A session whose second message sent the notes, then the photo.
    private func arranged(_ fixture: ReadersFixture) throws -> String {
        let session = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        try fixture.upload(
            session: session.id, id: Self.photo.id, filename: "receipt.png", contentType: "image/png", size: 48_213,
            width: 800, height: 600, thumbnail: true)
        try fixture.upload(
            session: session.id, id: Self.notes.id, filename: "notes.txt", contentType: "text/plain", size: 12)
        try fixture.append(session: session.id, body: "plain")
        try fixture.append(session: session.id, body: "", attachments: Self.notes.id + "," + Self.photo.id)
        return session.id
    }

    @Test func historyCarriesEachMessagesAttachmentsInTheirOrder() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let session = try arranged(fixture)
        let messages = try fixture.queries.messages(sessionID: session, afterSeq: 0, limit: 10, withNotes: true)
        #expect(messages.map(\.attachments) == [[], [Self.notes, Self.photo]])
        #expect(messages.map(\.body) == ["plain", ""])
    }

    @Test func theCatchUpCarriesThemToo() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let session = try arranged(fixture)
        let answer = try fixture.queries.catchUp(
            [CatchUpRequest(sessionID: session, after: 1, announce: false)], limit: 10)
        #expect(answer.first?.messages.map(\.attachments) == [[Self.notes, Self.photo]])
    }
}
