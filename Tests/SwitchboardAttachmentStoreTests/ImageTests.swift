import SwitchboardAttachmentStore
import Synchronization
import Testing

/// The inspector is called with the whole image on the worker; its thumbnail
/// is stored as variant 1; a refusal leaves nothing.
@Suite struct ImageTests {
    /// Records each call and answers with `answer`.
    final class Inspector: Sendable {
        let calls = Mutex<[(bytes: [UInt8], type: String)]>([])
        let answer: @Sendable ([UInt8]) -> Result<ImageFacts, ImageRefusal>

        init(_ answer: @escaping @Sendable ([UInt8]) -> Result<ImageFacts, ImageRefusal>) { self.answer = answer }

        var closure: ImageInspector {
            { bytes, type in
                self.calls.withLock { $0.append((bytes, type)) }
                return self.answer(bytes)
            }
        }
    }

    @Test(arguments: StorageKind.allCases)
    func anImageIsInspectedAndItsThumbnailStored(_ kind: StorageKind) throws {
        // Larger than a chunk, so the thumbnail too is read across a boundary.
        let thumbnail = testBytes(300_000, seed: 11)
        let inspector = Inspector { _ in
            .success(ImageFacts(width: 4000, height: 3000, thumbnail: thumbnail, thumbnailType: "image/jpeg"))
        }
        let fixture = try StoreFixture(kind, inspector: inspector.closure)
        defer { fixture.close() }
        let image = testBytes(900_000, seed: 12)
        let record = try fixture.upload(image, type: "image/png").get()
        let calls = inspector.calls.withLock { $0 }
        #expect(calls.count == 1)
        #expect(calls.first?.bytes == image && calls.first?.type == "image/png")
        #expect(record.width == 4000 && record.height == 3000 && record.thumbnailSize == 300_000)
        #expect(record.hasThumbnail)
        #expect(try fixture.lookup(record.id) == .success(record))
        #expect(try fixture.read(record.id, variant: 1, offset: 0, length: 1_000_000).get() == thumbnail)
        let chunk = AttachmentStore.chunkBytes
        #expect(
            try fixture.read(record.id, variant: 1, offset: Int64(chunk - 3), length: 10).get()
                == Array(thumbnail[(chunk - 3)..<(chunk + 7)]))
        #expect(try fixture.read(record.id, offset: 0, length: 1_000_000).get() == image)
        switch kind {
        case .postgres:
            let variants = try fixture.db.query(
                "SELECT variant::text FROM attachment_chunks WHERE attachment_id = $1 ORDER BY variant, n", [record.id]
            ).rows.map { $0[0] }
            #expect(variants == ["0", "0", "0", "0", "1", "1"])
        case .filesystem:
            let id = record.id
            #expect(fixture.files() == ["\(id.prefix(2))/\(id)", "\(id.prefix(2))/\(id).thumb"])
        }

        // Not an image: not inspected, no thumbnail.
        let text = try fixture.upload(Array("plain".utf8), type: "text/plain").get()
        #expect(inspector.calls.withLock { $0.count } == 1)
        #expect(text.thumbnailSize == nil && text.width == nil)
        #expect(try fixture.read(text.id, variant: 1, offset: 0, length: 10) == .failure(.notFound))
    }

    @Test(arguments: StorageKind.allCases)
    func anImageWithoutThumbnailKeepsItsSize(_ kind: StorageKind) throws {
        let inspector = Inspector { _ in .success(ImageFacts(width: 1, height: 2, thumbnail: nil, thumbnailType: "")) }
        let fixture = try StoreFixture(kind, inspector: inspector.closure)
        defer { fixture.close() }
        let record = try fixture.upload(testBytes(100), type: "image/gif").get()
        #expect(record.width == 1 && record.height == 2 && record.thumbnailSize == nil)
        #expect(try fixture.read(record.id, variant: 1, offset: 0, length: 1) == .failure(.notFound))
    }

    @Test(arguments: StorageKind.allCases)
    func aRefusedImageLeavesNothing(_ kind: StorageKind) throws {
        let inspector = Inspector { _ in .failure(ImageRefusal("declares 90000 x 90000 pixels")) }
        let fixture = try StoreFixture(kind, inspector: inspector.closure)
        defer { fixture.close() }
        let id = newUUID()
        let image = testBytes(600_000, seed: 13)
        #expect(
            try fixture.upload(image, id: id, type: "image/png")
                == .failure(.imageRefused("declares 90000 x 90000 pixels")))
        #expect(inspector.calls.withLock { $0.map(\.bytes) } == [image])
        #expect(try fixture.nothingStored(id))
        #expect(fixture.files().allSatisfy { !$0.contains(id) })
        #expect(try fixture.lookup(id) == .success(nil))
    }
}
