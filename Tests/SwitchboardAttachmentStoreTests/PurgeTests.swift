import SwitchboardAttachmentStore
import Testing

/// The two purges count and delete exactly what they should, bytes included.
@Suite struct PurgeTests {
    @Test(arguments: StorageKind.allCases)
    func unsentAttachmentsPastTheirTimeAndBytesWithoutARowAreDeleted(_ kind: StorageKind) throws {
        let fixture = try StoreFixture(kind)
        defer { fixture.close() }
        let old = try fixture.upload(testBytes(300_000, seed: 21)).get()
        let recent = try fixture.upload(testBytes(1000, seed: 22)).get()
        let sent = try fixture.upload(testBytes(1000, seed: 23)).get()
        try fixture.db.query(
            "UPDATE attachments SET created_at = now() - interval '2 days' WHERE id = ANY($1::uuid[])",
            ["{\(old.id),\(sent.id)}"])
        try fixture.db.query(
            "UPDATE attachments SET sent_at = now(), message_id = gen_random_uuid() WHERE id = $1", [sent.id])

        #expect(try fixture.store.purgeOrphans(olderThanSeconds: 86400) == 1)
        #expect(try fixture.nothingStored(old.id))
        #expect(try fixture.lookup(old.id) == .success(nil))
        for kept in [recent, sent] {
            #expect(try fixture.read(kept.id, offset: 0, length: 2000).get().count == 1000)
        }
        #expect(try fixture.store.purgeOrphans(olderThanSeconds: 86400) == 0)

        // A row gone without the store (its session hard-deleted: the cascade) leaves bytes with no row.
        try fixture.db.query("DELETE FROM attachments WHERE id = $1", [recent.id])
        #expect(try !fixture.nothingStored(recent.id))
        #expect(try fixture.store.purgeOrphans(olderThanSeconds: 86400) == 0)
        #expect(try fixture.store.purgeOrphans(olderThanSeconds: 86400, abandonedAfterSeconds: 0) == 1)
        #expect(try fixture.nothingStored(recent.id))
        #expect(try fixture.read(sent.id, offset: 0, length: 2000).get().count == 1000)
    }

    @Test(arguments: StorageKind.allCases)
    func attachmentsOfSessionsDeletedPastTheRetentionAreDeleted(_ kind: StorageKind) throws {
        let fixture = try StoreFixture(kind)
        defer { fixture.close() }
        let (longAgo, lately) = (newUUID(), newUUID())
        try fixture.addSession(longAgo)
        try fixture.addSession(lately)
        let gone = try (0..<2).map {
            try fixture.upload(testBytes(280_000, seed: UInt64(30 + $0)), session: longAgo).get()
        }
        let kept = try fixture.upload(testBytes(1000, seed: 40), session: lately).get()
        let live = try fixture.upload(testBytes(1000, seed: 41)).get()
        try fixture.db.query(
            "UPDATE chat_sessions SET deleted_at = now() - interval '40 days' WHERE id = $1", [longAgo])
        try fixture.db.query("UPDATE chat_sessions SET deleted_at = now() - interval '10 days' WHERE id = $1", [lately])

        #expect(try fixture.store.purgeDeleted(retentionDays: 30) == 2)
        for attachment in gone { #expect(try fixture.nothingStored(attachment.id)) }
        #expect(try fixture.lookup(kept.id).get()?.sessionDeleted == true)
        #expect(try fixture.read(kept.id, offset: 0, length: 10).get().count == 10)
        #expect(try fixture.lookup(live.id).get()?.sessionDeleted == false)
        #expect(try fixture.store.purgeDeleted(retentionDays: 30) == 0)
        #expect(try fixture.store.purgeDeleted(retentionDays: 5) == 1)
        #expect(try fixture.nothingStored(kept.id))
    }
}
