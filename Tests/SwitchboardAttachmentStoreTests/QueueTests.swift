import SwitchboardAttachmentStore
import Testing

/// New work is bounded per worker; what belongs to an accepted upload is not.
@Suite struct QueueTests {
    @Test func newWorkIsRefusedWhenTheQueueIsFullAndAcceptedUploadsContinue() throws {
        let fixture = try StoreFixture(.postgres, workers: 1, start: false)
        defer { fixture.close() }
        let store = AttachmentStore(
            databaseURL: fixture.database.url, storage: .postgres, workers: 1, queueCapacity: 2, inspector: nil)
        defer { store.stop() }
        // Not started: jobs wait in the queue.
        let counter = StoredCounter()
        let first = try #require(store.beginUpload(fixture.new(), sessionQuotaBytes: 1 << 30) { counter.add($0) })
        var second = store.beginUpload(fixture.new(), sessionQuotaBytes: 1 << 30) { _ in }
        #expect(second != nil)
        #expect(store.beginUpload(fixture.new(), sessionQuotaBytes: 1 << 30) { _ in } == nil)
        let refused = try wait { done in store.lookup(id: newUUID(), completion: done) }
        #expect(refused == .failure(.unavailable("the attachment workers are busy")))
        // The accepted upload's pieces and finish still go in, past the bound.
        let bytes = testBytes(5000)
        for start in stride(from: 0, to: bytes.count, by: 1000) { first.append(Array(bytes[start..<(start + 1000)])) }
        #expect(store.queueDepth == 7)
        // An upload dropped unfinished is aborted: one more job, past the bound too.
        second = nil
        #expect(store.queueDepth == 8)
        store.start()
        let record = try fixture.finish(first, bytes).get()
        #expect(record.size == 5000)
        try counter.wait(for: 5000)
        #expect(
            try wait { done in store.read(id: record.id, variant: 0, offset: 0, length: 5000, completion: done) }.get()
                == bytes)
        // Once stopped: refused at once, pieces reported, finish failed on the caller's thread.
        let late = try #require(store.beginUpload(fixture.new(), sessionQuotaBytes: 1 << 30) { counter.add($0) })
        store.stop()
        late.append([1, 2, 3])
        #expect(counter.value == 5003)
        #expect(try fixture.finish(late, [1, 2, 3]) == .failure(.unavailable("the attachment store is stopped")))
        #expect(store.beginUpload(fixture.new(), sessionQuotaBytes: 1 << 30) { _ in } == nil)
    }
}
