import SwitchboardAttachmentStore
import SwitchboardCrypto
import SwitchboardPostgres
import Testing

/// A worker whose connection died while idle connects again, without failing
/// the lookup, the read or the upload it was serving.
@Suite struct ReconnectTests {
    private func terminateWorkers(_ fixture: StoreFixture) throws -> Int {
        try fixture.db.query(
            """
            SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
             WHERE datname = current_database() AND application_name = 'switchboard-attachments'
            """
        ).int(0, 0) ?? 0
    }

    @Test(arguments: StorageKind.allCases)
    func workersReconnectAfterTheirConnectionsAreKilled(_ kind: StorageKind) throws {
        let fixture = try StoreFixture(kind, workers: 1)
        defer { fixture.close() }
        let bytes = testBytes(800_000, seed: 51)
        let counter = StoredCounter()
        let upload = try #require(
            fixture.store.beginUpload(fixture.new(), sessionQuotaBytes: 1 << 30) { counter.add($0) })
        upload.append(Array(bytes[..<300_000]))
        try counter.wait(for: 262_144)
        #expect(try terminateWorkers(fixture) == 1)
        upload.append(Array(bytes[300_000...]))
        let record = try wait { done in
            upload.finish(
                type: "application/pdf", size: Int64(bytes.count), sha256: hex(SHA256.hash(bytes)), completion: done)
        }.get()
        #expect(try terminateWorkers(fixture) == 1)
        #expect(try fixture.lookup(record.id).get()?.size == 800_000)
        #expect(try terminateWorkers(fixture) == 1)
        #expect(try fixture.read(record.id, offset: 0, length: 1_000_000).get() == bytes)
    }
}
