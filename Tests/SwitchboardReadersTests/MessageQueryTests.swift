import Foundation
import SwitchboardChat
import SwitchboardReaders
import Testing

@Suite struct MessageQueryTests {
    @Test func messagesComeInOrderAfterSeqUpToLimit() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let session = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        for index in 1...5 { try fixture.append(session: session.id, body: "m\(index)") }

        #expect(
            try fixture.queries.messages(sessionID: session.id, afterSeq: 0, limit: 10, withNotes: true).map(\.seq) == [
                1, 2, 3, 4, 5,
            ])
        #expect(
            try fixture.queries.messages(sessionID: session.id, afterSeq: 2, limit: 2, withNotes: true).map(\.body) == [
                "m3", "m4",
            ])
        #expect(try fixture.queries.messages(sessionID: session.id, afterSeq: 5, limit: 10, withNotes: true).isEmpty)
        #expect(try fixture.queries.messages(sessionID: session.id, afterSeq: 0, limit: 0, withNotes: true).isEmpty)
        #expect(
            try fixture.queries.messages(sessionID: UUID().uuidString, afterSeq: 0, limit: 10, withNotes: true).isEmpty)
    }

    /// A visitor's history has holes where the notes are; an operator's has them all.
    @Test func notesAreReadOnlyWithNotes() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let session = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        try fixture.append(session: session.id, clientID: "c-1", body: "hello")
        try fixture.append(
            session: session.id, clientID: "c-2", role: "operator", senderID: "op-7", senderName: "Ken", kind: "note",
            body: "VIP, refund without asking")
        try fixture.append(
            session: session.id, clientID: "c-3", role: "operator", senderID: "op-7", senderName: "Ken", body: "hi!")
        try fixture.append(
            session: session.id, clientID: "c-4", role: "operator", senderID: "op-7", senderName: "Ken", kind: "note",
            body: "done")

        let all = try fixture.queries.messages(sessionID: session.id, afterSeq: 0, limit: 10, withNotes: true)
        #expect(all.map(\.seq) == [1, 2, 3, 4])
        let visitors = try fixture.queries.messages(sessionID: session.id, afterSeq: 0, limit: 10, withNotes: false)
        #expect(visitors.map(\.seq) == [1, 3])
        #expect(!visitors.contains { $0.kind == "note" || $0.body.contains("refund") })
        // The limit counts what is returned: a page of one after the first message skips the note.
        #expect(
            try fixture.queries.messages(sessionID: session.id, afterSeq: 1, limit: 1, withNotes: false).map(\.seq) == [
                3
            ])
        // The session's preview is never a note: its last message as anyone may read it.
        let read = try #require(try fixture.queries.session(id: session.id))
        #expect(read.lastSeq == 4)
        #expect(read.lastMessage?.seq == 3)
        #expect(read.lastMessage?.body == "hi!")
    }

    @Test func messageFieldsAreMapped() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let session = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        try fixture.append(
            session: session.id, clientID: "c-1", role: "operator", senderID: "op-7", senderName: "Ken", kind: "note",
            body: "Hello, \"world\"")

        let message = try #require(
            try fixture.queries.messages(sessionID: session.id, afterSeq: 0, limit: 10, withNotes: true).first)
        #expect(isLowerUUID(message.id))
        #expect(message.sessionID == session.id)
        #expect(message.seq == 1)
        #expect(message.clientMessageID == "c-1")
        #expect(message.kind == "note")
        #expect(message.body == "Hello, \"world\"")
        #expect(message.sender == Participant(id: "op-7", role: "operator", name: "Ken"))
        #expect(isProtocolTimestamp(message.createdAt))

        let stored = try fixture.admin.query(
            """
            SELECT id::text, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
              FROM chats WHERE session_id = $1::uuid
            """, [session.id])
        #expect(stored.rows == [[message.id, message.createdAt]])
    }

    @Test func legacyRowsFallBackToTheLegacySender() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let session = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        let legacyUser = UUID().uuidString.lowercased()
        try fixture.admin.query(
            """
            INSERT INTO chats (workspace_id, user_id, role, content, session_id, seq, client_msg_id, created_at)
            VALUES ($1::uuid, $2::uuid, 'user', 'old', $3::uuid, 1, 'legacy-1', '2024-02-03 04:05:06.789+00'),
                   ($1::uuid, NULL, 'assistant', 'older', $3::uuid, 2, 'legacy-2', '2024-02-03 04:05:07+00')
            """, [fixture.workspaceID, legacyUser, session.id])
        try fixture.admin.query("UPDATE chat_sessions SET last_seq = 2 WHERE id = $1::uuid", [session.id])

        let messages = try fixture.queries.messages(sessionID: session.id, afterSeq: 0, limit: 10, withNotes: true)
        #expect(
            messages.map(\.sender) == [
                Participant(id: legacyUser, role: "user", name: nil), Participant(id: "", role: "assistant", name: nil),
            ])
        #expect(messages.map(\.kind) == ["text", "text"])
        #expect(messages.map(\.createdAt) == ["2024-02-03T04:05:06.789Z", "2024-02-03T04:05:07.000Z"])
        let last = try #require(try fixture.queries.session(id: session.id)?.lastMessage)
        #expect(
            last == LastMessage(seq: 2, body: "older", senderRole: "assistant", createdAt: "2024-02-03T04:05:07.000Z"))
    }
}
