import Foundation
import SwitchboardAttachmentStore
import SwitchboardCrypto
import SwitchboardPostgres
import Testing

/// Uploads on the real PostgreSQL, in both storage kinds.
@Suite struct UploadTests {
    private let chunk = AttachmentStore.chunkBytes

    @Test(arguments: StorageKind.allCases)
    func threeMebibytesInOddPiecesReadBackExactlyAndByRanges(_ kind: StorageKind) throws {
        let fixture = try StoreFixture(kind)
        defer { fixture.close() }
        let bytes = testBytes(3 * 1024 * 1024)
        let id = newUUID()
        let (upload, counter) = try fixture.start(fixture.new(id), bytes)

        // Written but not committed: stored bytes exist, yet nobody can find or read them.
        try counter.wait(for: 2 * chunk)
        #expect(try fixture.lookup(id) == .success(nil))
        #expect(try fixture.read(id, offset: 0, length: 10) == .failure(.notFound))
        switch kind {
        case .postgres: #expect(try fixture.chunkRows(id) >= 2)
        case .filesystem: #expect(fixture.files() == ["tmp/\(id).part"])
        }

        let record = try fixture.finish(upload, bytes).get()
        try counter.wait(for: bytes.count)
        #expect(counter.value == bytes.count)
        #expect(record.id == id && record.size == Int64(bytes.count))
        #expect(record.sha256 == hex(SHA256.hash(bytes)))
        #expect(record.storage == kind.rawValue && record.contentType == "application/octet-stream")
        #expect(record.thumbnailSize == nil && record.width == nil && record.messageID == nil && record.sentAt == nil)
        #expect(
            !record.sessionDeleted && record.workspaceID == fixture.workspace && record.sessionID == fixture.session)
        #expect(record.createdAt.count == 24 && record.createdAt.hasSuffix("Z"))
        #expect(try fixture.lookup(id) == .success(record))
        switch kind {
        case .postgres:
            #expect(try fixture.chunkRows(id) == 12)
        case .filesystem:
            #expect(fixture.files() == ["\(id.prefix(2))/\(id)"])
            let size = try FileManager.default.attributesOfItem(atPath: "\(fixture.folder)/\(id.prefix(2))/\(id)")[
                .size]
            #expect(size as? Int == bytes.count)
        }

        // Whole, then ranges around and across chunk boundaries, then the ends.
        #expect(try fixture.read(id, offset: 0, length: bytes.count + 100).get() == bytes)
        let ranges: [(Int, Int)] = [
            (0, 1), (chunk - 1, 2), (chunk, chunk), (2 * chunk - 10, chunk + 20), (chunk - 7, 3 * chunk + 9),
            (bytes.count - 5, 100), (12345, 1),
        ]
        for (offset, length) in ranges {
            let expected = Array(bytes[offset..<min(offset + length, bytes.count)])
            #expect(
                try fixture.read(id, offset: Int64(offset), length: length).get() == expected, "\(offset)+\(length)")
        }
        #expect(try fixture.read(id, offset: Int64(bytes.count), length: 10).get() == [])
        #expect(try fixture.read(id, offset: 10, length: 0).get() == [])
        // Sequential reads in an odd step put the whole file back together.
        var joined: [UInt8] = []
        while joined.count < bytes.count {
            joined += try fixture.read(id, offset: Int64(joined.count), length: 100_003).get()
        }
        #expect(joined == bytes)
        #expect(try fixture.read(id, variant: 1, offset: 0, length: 10) == .failure(.notFound))
        #expect(try fixture.read(newUUID(), offset: 0, length: 10) == .failure(.notFound))
        #expect(try fixture.read("../etc/passwd", offset: 0, length: 10) == .failure(.notFound))
        #expect(try fixture.lookup("not-a-uuid") == .success(nil))
    }

    @Test(arguments: StorageKind.allCases)
    func emptyAndSmallFilesAreStored(_ kind: StorageKind) throws {
        let fixture = try StoreFixture(kind)
        defer { fixture.close() }
        let empty = try fixture.upload([]).get()
        #expect(empty.size == 0)
        #expect(try fixture.read(empty.id, offset: 0, length: 10).get() == [])
        let small = try fixture.upload(Array("hello".utf8), type: "text/plain").get()
        #expect(try fixture.read(small.id, offset: 1, length: 3).get() == Array("ell".utf8))
    }

    @Test(arguments: StorageKind.allCases)
    func abortLeavesNothing(_ kind: StorageKind) throws {
        let fixture = try StoreFixture(kind)
        defer { fixture.close() }
        let bytes = testBytes(700_000, seed: 7)
        let id = newUUID()
        let (upload, counter) = try fixture.start(fixture.new(id), bytes)
        try counter.wait(for: 2 * chunk)
        upload.abort()
        // The abort hands back every byte not yet reported, after it deleted what was written.
        try counter.wait(for: bytes.count)
        #expect(counter.value == bytes.count)
        // A finish after an abort fails. Queued behind the abort, its answer also says the abort has run:
        // with files every byte is reported as it is written, so the count alone may be complete before.
        #expect(try fixture.finish(upload, bytes) == .failure(.unavailable("the upload was aborted")))
        #expect(try fixture.nothingStored(id))
        #expect(try fixture.lookup(id) == .success(nil))
    }

    /// A connection cut mid-upload must stop costing the database at once: with a
    /// pace of one chunk a second, writing the eight queued chunks would take 7 s.
    @Test(arguments: StorageKind.allCases)
    func anAbortDropsThePiecesStillQueuedInsteadOfWritingThem(_ kind: StorageKind) throws {
        let fixture = try StoreFixture(kind, workers: 1, maxWriteBytesPerSecond: chunk)
        defer { fixture.close() }
        let bytes = testBytes(8 * chunk, seed: 9)
        let id = newUUID()
        let (upload, counter) = try fixture.start(fixture.new(id), bytes, pieces: [chunk])
        let began = Date()
        upload.abort()
        try counter.wait(for: bytes.count)
        #expect(counter.value == bytes.count)
        // Queued behind the abort: its answer says the abort has run.
        #expect(try fixture.finish(upload, bytes) == .failure(.unavailable("the upload was aborted")))
        let seconds = Date().timeIntervalSince(began)
        // At most the piece being paced when the abort came (one second), never the rest.
        #expect(seconds < 3, "the abort took \(seconds) s")
        #expect(try fixture.nothingStored(id))
    }

    @Test(arguments: StorageKind.allCases)
    func anUploadDroppedWithoutFinishIsAborted(_ kind: StorageKind) throws {
        let fixture = try StoreFixture(kind)
        defer { fixture.close() }
        let bytes = testBytes(600_000, seed: 8)
        let id = newUUID()
        let counter: StoredCounter
        do {
            let started = try fixture.start(fixture.new(id), bytes)
            counter = started.1
        }
        try counter.wait(for: bytes.count)
        #expect(try fixture.nothingStored(id))
    }

    @Test(arguments: StorageKind.allCases)
    func aKilledUploadIsNeverVisibleAndTheOrphanPurgeRemovesIt(_ kind: StorageKind) throws {
        let fixture = try StoreFixture(kind)
        defer { fixture.close() }
        let bytes = testBytes(1_000_000, seed: 9)
        let id = newUUID()
        let (upload, counter) = try fixture.start(fixture.new(id), bytes)
        try counter.wait(for: 3 * chunk)
        // The gateway dies mid-upload: the store stops with no finish, another one starts.
        fixture.restart()
        withExtendedLifetime(upload) {}
        #expect(try fixture.lookup(id) == .success(nil))
        #expect(try fixture.read(id, offset: 0, length: 1) == .failure(.notFound))
        switch kind {
        case .postgres: #expect(try fixture.chunkRows(id) == 3)
        case .filesystem: #expect(fixture.files() == ["tmp/\(id).part"])
        }
        // Younger than the grace an upload in progress gets: kept.
        #expect(try fixture.store.purgeOrphans(olderThanSeconds: 86400) == 0)
        #expect(try !fixture.nothingStored(id))
        #expect(try fixture.store.purgeOrphans(olderThanSeconds: 86400, abandonedAfterSeconds: 0) == 1)
        #expect(try fixture.nothingStored(id))
        #expect(fixture.files() == [])
    }

    @Test(arguments: StorageKind.allCases)
    func theSessionQuotaIsCheckedAtTheStartAndWhenCommitting(_ kind: StorageKind) throws {
        let fixture = try StoreFixture(kind, workers: 3)
        defer { fixture.close() }
        let quota: Int64 = 1_000_000
        let first = try fixture.upload(testBytes(600_000, seed: 1), quota: quota).get()
        // Past the room left: refused, nothing kept.
        let over = newUUID()
        #expect(try fixture.upload(testBytes(400_001, seed: 2), id: over, quota: quota) == .failure(.quotaExceeded))
        #expect(try fixture.nothingStored(over))
        // Exactly the room left: stored; then the session is full and the next upload fails at once.
        _ = try fixture.upload(testBytes(400_000, seed: 3), quota: quota).get()
        let full = newUUID()
        #expect(try fixture.upload([1, 2, 3], id: full, quota: quota) == .failure(.quotaExceeded))
        #expect(try fixture.nothingStored(full))

        // Two uploads that each fit alone but not together: one commits, the other is refused.
        let session = newUUID()
        try fixture.addSession(session)
        let bytes = testBytes(300_000, seed: 4)
        let (a, b) = (newUUID(), newUUID())
        let (uploadA, counterA) = try fixture.start(fixture.new(a, session: session), bytes, quota: 500_000)
        let (uploadB, counterB) = try fixture.start(fixture.new(b, session: session), bytes, quota: 500_000)
        try counterA.wait(for: 200_000)
        try counterB.wait(for: 200_000)
        let results = try [uploadA, uploadB].map { try fixture.finish($0, bytes) }
        #expect(results.filter { (try? $0.get()) != nil }.count == 1)
        #expect(results.contains(.failure(.quotaExceeded)))
        let stored = try fixture.db.query(
            "SELECT count(*), sum(size) FROM attachments WHERE session_id = $1", [session]
        ).rows
        #expect(stored == [["1", "300000"]])
        #expect(try fixture.chunkRows(a) + fixture.chunkRows(b) == (kind == .postgres ? 2 : 0))
        #expect(first.size == 600_000)
    }

    @Test(arguments: StorageKind.allCases)
    func deletedMissingOrForeignSessionsAreRefused(_ kind: StorageKind) throws {
        let fixture = try StoreFixture(kind)
        defer { fixture.close() }
        let stored = try fixture.upload(testBytes(1000)).get()
        #expect(stored.sessionDeleted == false)

        let other = newUUID()
        try fixture.db.query("INSERT INTO workspaces (id, name) VALUES ($1, 'other')", [other])
        let foreign = newUUID()
        try fixture.addSession(foreign, workspace: other)
        #expect(try fixture.upload([1], session: newUUID()) == .failure(.noSession))
        #expect(try fixture.upload([1], session: foreign) == .failure(.noSession))
        #expect(try fixture.upload([1], session: "nope") == .failure(.noSession))

        // Soft-deleted between the start and the finish: refused when committing, nothing kept.
        let id = newUUID()
        let bytes = testBytes(400_000, seed: 5)
        let (upload, counter) = try fixture.start(fixture.new(id), bytes)
        try counter.wait(for: chunk)
        try fixture.db.query("UPDATE chat_sessions SET deleted_at = now() WHERE id = $1", [fixture.session])
        #expect(try fixture.finish(upload, bytes) == .failure(.noSession))
        #expect(try fixture.nothingStored(id))
        // And from the start once deleted; the earlier attachment is marked.
        #expect(try fixture.upload([1]) == .failure(.noSession))
        var deleted = stored
        deleted.sessionDeleted = true
        #expect(try fixture.lookup(stored.id) == .success(deleted))
    }

    @Test(arguments: StorageKind.allCases)
    func aFinishWithAnotherSizeThanReceivedIsRefused(_ kind: StorageKind) throws {
        let fixture = try StoreFixture(kind)
        defer { fixture.close() }
        let id = newUUID()
        let (upload, counter) = try fixture.start(fixture.new(id), testBytes(1000))
        let result = try fixture.finish(upload, testBytes(999))
        #expect(result == .failure(.unavailable("the upload received 1000 bytes, not 999")))
        try counter.wait(for: 1000)
        #expect(try fixture.nothingStored(id))
    }
}
