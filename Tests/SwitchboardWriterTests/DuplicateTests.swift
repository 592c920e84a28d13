import SwitchboardTestSupport
import SwitchboardWriter
import Testing

@Suite struct DuplicateTests {
    @Test func aRetriedClientMessageIDReturnsTheOriginalRow() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let sessions = try makeSessions(db, count: 2)
        let first = ResultCollector()
        let second = ResultCollector()
        // A long delay keeps the first three submissions in one batch (on one
        // connection: with several, the two sessions could go to different shards).
        let writer = try startedWriter(
            WriterConfiguration(
                databaseURL: db.url, maxBatchMessages: 3, maxBatchDelayMilliseconds: 60_000, connections: 1), first)
        defer { writer.stop() }
        let other = try startedWriter(WriterConfiguration(databaseURL: db.url, maxBatchDelayMilliseconds: 1), second)
        defer { other.stop() }

        // The same batch: the second copy is a duplicate of the first.
        #expect(writer.submit(command(session: sessions[0], clientID: "same", token: 1, body: "original")) == .accepted)
        #expect(writer.submit(command(session: sessions[0], clientID: "same", token: 2, body: "retry")) == .accepted)
        // The same client id in another session is a different message.
        #expect(
            writer.submit(command(session: sessions[1], clientID: "same", token: 3, body: "elsewhere")) == .accepted)
        _ = try first.wait(for: 3)
        let batch = try first.byToken()
        let stored = try #require(batch[1]?.outcome.message)
        #expect(stored.session?.version == 2, "the stored row carries its session's new state")
        // A duplicate answers with the original row alone: it changed no session.
        var original = stored
        original.session = nil
        #expect(batch[1]!.outcome.isStored)
        #expect(batch[2]?.outcome == .duplicate(original))
        #expect(batch[3]!.outcome.isStored)
        #expect(batch[3]?.outcome.message?.seq == 1)
        #expect(first.batchSizes == [3])

        // A later batch, and the other writer on its own connection: still the original row.
        for token in UInt64(4)...6 {
            #expect(
                writer.submit(command(session: sessions[0], clientID: "same", token: token, body: "again")) == .accepted
            )
        }
        #expect(
            other.submit(command(session: sessions[0], clientID: "same", token: 7, body: "other node")) == .accepted)
        _ = try first.wait(for: 6)
        let later = try first.byToken()
        let fromOther = try second.wait(for: 1)
        for token in UInt64(4)...6 { #expect(later[token]?.outcome == .duplicate(original)) }
        #expect(fromOther[0].outcome == .duplicate(original))
        #expect(original.body == "original")

        let rows = try storedRows(db)["same"] ?? []
        #expect(rows.count == 2)
        #expect(
            rows.filter { $0.sessionID == sessions[0] } == [StoredRow(id: original.id, sessionID: sessions[0], seq: 1)])
        #expect(writer.statistics.duplicates == 4)
        #expect(try checkGapFree(db).count == 2)
    }
}
