import Foundation
import SwitchboardPostgres
import SwitchboardTestSupport
import SwitchboardWriter
import Testing

/// Messages that send uploads (migration 12), on the real function.
@Suite struct AttachmentTests {
    /// An upload row as the attachment store commits it; returns its id.
    @discardableResult
    private func upload(
        _ db: TestDatabase, session: String, role: String = "visitor", uploader: String = "v-1",
        filename: String = "receipt.png", contentType: String = "image/png", size: Int = 48_213,
        width: Int? = 800, height: Int? = 600, thumbnail: Bool = true, id: String = UUID().uuidString.lowercased()
    ) throws -> String {
        try db.connect().query(
            """
            INSERT INTO attachments (id, workspace_id, session_id, uploader_role, uploader_id, filename, content_type,
                                     size, sha256, width, height, storage, thumbnail_size)
            SELECT $1::uuid, s.workspace_id, s.id, $3, $4, $5, $6, $7::bigint, repeat('ab', 32), $8::int, $9::int,
                   'postgres', $10::bigint
              FROM chat_sessions s WHERE s.id = $2::uuid
            """,
            [
                id, session, role, uploader, filename, contentType, String(size), width.map(String.init),
                height.map(String.init), thumbnail ? "1234" : nil,
            ])
        return id
    }

    private func withAttachments(_ command: WriteCommand, _ ids: [String]) -> WriteCommand {
        var command = command
        command.attachmentIDs = ids
        return command
    }

    /// `(message_id, sent_at IS NOT NULL)` of an upload.
    private func sent(_ db: TestDatabase, _ id: String) throws -> (String?, Bool) {
        let row = try db.connect().query(
            "SELECT message_id::text, sent_at IS NOT NULL FROM attachments WHERE id = $1::uuid", [id])
        return (row.string(0, 0), row.string(0, 1) == "t")
    }

    private func storedAttachments(_ db: TestDatabase, clientID: String) throws -> String? {
        try db.connect().query("SELECT attachments::text FROM chats WHERE client_msg_id = $1", [clientID]).string(0, 0)
    }

    @Test func aSendStoresItsAttachmentsInOrderAndMarksThemSent() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let session = try makeSessions(db, count: 1)[0]
        let photo = try upload(db, session: session, id: "0f3c0000-0000-4000-8000-000000000002")
        let text = try upload(
            db, session: session, filename: "notes.txt", contentType: "text/plain", size: 12, width: nil, height: nil,
            thumbnail: false, id: "0f3c0000-0000-4000-8000-000000000001")
        let collector = ResultCollector()
        let writer = try startedWriter(WriterConfiguration(databaseURL: db.url), collector)
        defer { writer.stop() }

        // The order given, not the ids' order; the ids in upper case are the same uploads.
        #expect(
            writer.submit(
                withAttachments(command(session: session, clientID: "a", token: 1), [photo, text.uppercased()]))
                == .accepted)
        let result = try collector.wait(for: 1)[0]
        let stored = try #require(result.outcome.isStored ? result.outcome.message : nil, "\(result.outcome)")
        let expected =
            #"[{"id": "0f3c0000-0000-4000-8000-000000000002", "size": 48213, "width": 800, "height": 600, "sha256": "\#(String(repeating: "ab", count: 32))", "filename": "receipt.png", "thumbnail": true, "content_type": "image/png"}, "#
            + #"{"id": "0f3c0000-0000-4000-8000-000000000001", "size": 12, "width": null, "height": null, "sha256": "\#(String(repeating: "ab", count: 32))", "filename": "notes.txt", "thumbnail": false, "content_type": "text/plain"}]"#
        #expect(stored.attachments == expected)
        #expect(try storedAttachments(db, clientID: "a") == expected)
        #expect(try sent(db, photo) == (stored.id, true))
        #expect(try sent(db, text) == (stored.id, true))
    }

    @Test func refusedSendsAreAnsweredAloneWhileTheBatchIsStored() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let sessions = try makeSessions(db, count: 2)
        let session = sessions[0]
        let good = try upload(db, session: session)
        let elsewhere = try upload(db, session: sessions[1])
        let operators = try upload(db, session: session, role: "operator", uploader: "v-1")
        let someoneElse = try upload(db, session: session, uploader: "v-2")
        let claimedTwice = try upload(db, session: session)
        let earlier = try upload(db, session: session)
        let missing = UUID().uuidString.lowercased()
        let collector = ResultCollector()
        let writer = try startedWriter(
            WriterConfiguration(
                databaseURL: db.url, maxBatchMessages: 1, maxBatchDelayMilliseconds: 1, connections: 1), collector)
        // First an earlier message sends `earlier`.
        #expect(
            writer.submit(withAttachments(command(session: session, clientID: "first", token: 1), [earlier]))
                == .accepted)
        _ = try collector.wait(for: 1)
        writer.stop()

        // One connection and a long delay: the nine sends go as one batch.
        let batched = ResultCollector()
        let batchWriter = try startedWriter(
            WriterConfiguration(
                databaseURL: db.url, maxBatchMessages: 9, maxBatchDelayMilliseconds: 60_000, connections: 1), batched)
        defer { batchWriter.stop() }
        let sends: [(String, [String])] = [
            ("plain", []), ("good", [good, claimedTwice]), ("other-session", [elsewhere]),
            ("operators", [operators]), ("someone-else", [someoneElse]),
            ("sent-before", [earlier]), ("claimed-again", [claimedTwice]), ("missing", [missing]),
            ("plain-after", []),
        ]
        for (index, (clientID, ids)) in sends.enumerated() {
            let submitted = batchWriter.submit(
                withAttachments(command(session: session, clientID: clientID, token: UInt64(10 + index)), ids))
            #expect(submitted == .accepted)
        }
        _ = try batched.wait(for: sends.count)
        #expect(batched.batchSizes == [sends.count])
        let results = try batched.byToken()
        #expect(results[10]?.outcome.message?.seq == 2)
        #expect(results[11]?.outcome.message?.seq == 3)
        #expect(results[12]?.outcome == .badAttachment(elsewhere))
        #expect(results[13]?.outcome == .badAttachment(operators))
        #expect(results[14]?.outcome == .badAttachment(someoneElse))
        #expect(results[15]?.outcome == .badAttachment(earlier))
        #expect(results[16]?.outcome == .badAttachment(claimedTwice))
        #expect(results[17]?.outcome == .badAttachment(missing))
        #expect(results[18]?.outcome.message?.seq == 4)
        #expect(results[18]?.outcome.message?.session?.version != nil, "the session's state rides on its last row")
        #expect(batchWriter.statistics.badAttachments == 6)
        #expect(batchWriter.statistics.failures == 0)

        // Nothing of a refused send is stored, nor marked; the session's seq stays gap-free.
        #expect(try checkGapFree(db) == [session: 4])
        let goodID = try #require(results[11]?.outcome.message?.id)
        #expect(try sent(db, good) == (goodID, true))
        #expect(try sent(db, claimedTwice) == (goodID, true))
        for unsent in [elsewhere, operators, someoneElse] { #expect(try sent(db, unsent) == (nil, false)) }
        #expect(try storedAttachments(db, clientID: "plain") == nil)
        #expect(try storedAttachments(db, clientID: "good")?.contains(claimedTwice) == true)
    }

    @Test func aDuplicateReturnsTheOriginalsAttachments() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let session = try makeSessions(db, count: 1)[0]
        let photo = try upload(db, session: session)
        let collector = ResultCollector()
        let writer = try startedWriter(
            WriterConfiguration(
                databaseURL: db.url, maxBatchMessages: 2, maxBatchDelayMilliseconds: 60_000, connections: 1), collector)
        defer { writer.stop() }
        // The same send twice in one batch, then again later (its upload is sent by then).
        let send = withAttachments(command(session: session, clientID: "same", token: 1), [photo])
        var again = send
        again.token = 2
        #expect(writer.submit(send) == .accepted)
        #expect(writer.submit(again) == .accepted)
        _ = try collector.wait(for: 2)
        let first = try collector.byToken()
        let original = try #require(first[1]?.outcome.message)
        #expect(original.attachments?.contains(photo) == true)
        #expect(first[2]?.outcome.isDuplicate == true)
        #expect(first[2]?.outcome.message?.attachments == original.attachments)

        var later = send
        later.token = 3
        var other = command(session: session, clientID: "other", token: 4)
        other.attachmentIDs = []
        #expect(writer.submit(later) == .accepted)
        #expect(writer.submit(other) == .accepted)
        _ = try collector.wait(for: 4)
        let second = try collector.byToken()
        #expect(second[3]?.outcome.isDuplicate == true)
        #expect(second[3]?.outcome.message?.id == original.id)
        #expect(second[3]?.outcome.message?.attachments == original.attachments)
        #expect(second[4]?.outcome.message?.attachments == nil)
        #expect(try checkGapFree(db) == [session: 2])
    }

    @Test func aRefusedVisitorMessageDoesNotReopenAClosedSession() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let session = try makeSessions(db, count: 1)[0]
        let theirs = try upload(db, session: session, uploader: "v-2")
        try db.connect().query("UPDATE chat_sessions SET status = 'closed', closed_at = now() WHERE id = $1", [session])
        let collector = ResultCollector()
        let writer = try startedWriter(WriterConfiguration(databaseURL: db.url), collector)
        defer { writer.stop() }

        #expect(
            writer.submit(withAttachments(command(session: session, clientID: "x", token: 1), [theirs])) == .accepted)
        let result = try collector.wait(for: 1)[0]
        #expect(result.outcome == .badAttachment(theirs))
        let state = try db.connect().query("SELECT status, last_seq FROM chat_sessions WHERE id = $1", [session])
        #expect(state.rows == [["closed", "0"]])
        #expect(try storedRows(db).isEmpty)
    }

    @Test func refusesMalformedAttachmentIDsAtSubmit() {
        let session = "00000000-0000-4000-8000-000000000001"
        let id = "0f3c0000-0000-4000-8000-000000000001"
        var plain = command(session: session, clientID: "c", token: 1)
        #expect(plain.invalidReason == nil)
        plain.attachmentIDs = [id, "not-a-uuid"]
        #expect(plain.invalidReason == "attachment id 2 is not a UUID")
        plain.attachmentIDs = [id, id.uppercased()]
        #expect(plain.invalidReason == "attachment \(id.uppercased()) is listed twice")
    }
}
