import SwitchboardAttachmentStore
import SwitchboardCrypto
import Synchronization

@testable import SwitchboardServer

/// Attachment storage in memory for the HTTP side's tests: it keeps what it
/// is given, and records how it was given (piece sizes, bytes waiting to be
/// stored at most, reads asked). It stores at once, or, with `storesSlowly`,
/// only when the test says (`storeWaiting`), in chunks of `chunkBytes` as
/// PostgreSQL storage does. Callbacks run on the calling thread; the server
/// hands them to its loop's queue as it does a worker's.
final class MemoryAttachments: AttachmentBackend, @unchecked Sendable {
    final class Upload: AttachmentUploading, @unchecked Sendable {
        let new: NewAttachment
        fileprivate let owner: MemoryAttachments
        fileprivate let onStored: @Sendable (Int) -> Void
        fileprivate(set) var bytes: [UInt8] = []
        fileprivate(set) var pieces: [Int] = []
        /// Appended and not yet reported stored.
        fileprivate(set) var waiting = 0
        fileprivate(set) var aborted = false
        fileprivate(set) var finished = false

        fileprivate init(new: NewAttachment, owner: MemoryAttachments, onStored: @escaping @Sendable (Int) -> Void) {
            self.new = new
            self.owner = owner
            self.onStored = onStored
        }

        func append(_ piece: [UInt8]) {
            owner.lock.withLock { _ in
                precondition(!finished && !aborted, "append after the upload ended")
                bytes += piece
                pieces.append(piece.count)
                waiting += piece.count
                owner.mostWaiting = max(owner.mostWaiting, waiting)
            }
            if !owner.storesSlowly { storeWaiting(all: false) }
        }

        /// Reports what waits as stored: whole chunks, or (`all`) everything.
        fileprivate func storeWaiting(all: Bool) {
            let count = owner.lock.withLock { _ -> Int in
                let chunk = owner.chunkBytes
                let count = all ? waiting : waiting / chunk * chunk
                waiting -= count
                return count
            }
            if count > 0 { onStored(count) }
        }

        func finish(
            type: String, size: Int64, sha256: String,
            completion: @escaping @Sendable (Result<AttachmentRecord, AttachmentStoreError>) -> Void
        ) {
            storeWaiting(all: true)
            let result = owner.commit(self, type: type, size: size, sha256: sha256)
            completion(result)
        }

        func abort() {
            owner.lock.withLock { _ in
                if !finished { aborted = true }
            }
        }
    }

    fileprivate let lock = Mutex(())
    /// Chunks in which slow storage reports pieces stored (PostgreSQL: 256 KiB).
    var chunkBytes = 1
    var storesSlowly = false
    /// `beginUpload` answers nil (no worker free).
    var refusesUploads = false
    /// `finish` fails with this.
    var finishFailure: AttachmentStoreError?
    /// Committed uploads get a thumbnail of these bytes (an image's, made by the worker).
    var thumbnail: [UInt8]?
    /// The image's pixels, for committed images.
    var imageSize: (width: Int, height: Int)?
    private(set) var uploads: [Upload] = []
    private(set) var records: [String: AttachmentRecord] = [:]
    private(set) var files: [String: [UInt8]] = [:]
    private(set) var thumbnails: [String: [UInt8]] = [:]
    private var deletedSessions: Set<String> = []
    /// The most bytes any upload had waiting to be stored.
    fileprivate(set) var mostWaiting = 0
    /// Every read: (variant, offset, length asked, bytes given).
    private(set) var reads: [(variant: Int16, offset: Int64, length: Int, given: Int)] = []

    func beginUpload(
        _ new: NewAttachment, sessionQuotaBytes: Int64, onStored: @escaping @Sendable (Int) -> Void
    ) -> Upload? {
        lock.withLock { _ in
            guard !refusesUploads else { return nil }
            let upload = Upload(new: new, owner: self, onStored: onStored)
            uploads.append(upload)
            return upload
        }
    }

    /// Slow storage catches up: every upload's waiting bytes are reported stored
    /// (in whole chunks unless `all`).
    func storeWaiting(all: Bool = false) {
        for upload in lock.withLock({ _ in uploads }) where !upload.finished { upload.storeWaiting(all: all) }
    }

    fileprivate func commit(
        _ upload: Upload, type: String, size: Int64, sha256: String
    ) -> Result<
        AttachmentRecord, AttachmentStoreError
    > {
        lock.withLock { _ in
            precondition(!upload.aborted, "finish after abort")
            upload.finished = true
            if let finishFailure { return .failure(finishFailure) }
            let new = upload.new
            precondition(Int64(upload.bytes.count) == size, "the size counted is not the bytes appended")
            precondition(SHA256.hex(SHA256.hash(upload.bytes)) == sha256, "the hash is not the bytes'")
            let isImage = type.hasPrefix("image/")
            let record = AttachmentRecord(
                id: new.id, workspaceID: new.workspaceID, sessionID: new.sessionID, uploaderRole: new.uploaderRole,
                uploaderID: new.uploaderID, filename: new.filename, contentType: type, size: size, sha256: sha256,
                width: isImage ? imageSize?.width : nil, height: isImage ? imageSize?.height : nil, storage: "postgres",
                thumbnailSize: isImage ? thumbnail.map { Int64($0.count) } : nil, messageID: nil,
                createdAt: "2026-01-01T00:00:00.000Z", sentAt: nil, sessionDeleted: false)
            records[new.id] = record
            files[new.id] = upload.bytes
            if isImage, let thumbnail { thumbnails[new.id] = thumbnail }
            return .success(record)
        }
    }

    /// A session soft-deleted: its attachments look deleted from now on.
    func deleteSession(_ id: String) {
        lock.withLock { _ in _ = deletedSessions.insert(id) }
    }

    /// Stores an attachment directly, as if uploaded earlier.
    func put(_ record: AttachmentRecord, bytes: [UInt8], thumbnail: [UInt8]? = nil) {
        lock.withLock { _ in
            records[record.id] = record
            files[record.id] = bytes
            if let thumbnail { thumbnails[record.id] = thumbnail }
        }
    }

    func lookup(id: String, completion: @escaping @Sendable (Result<AttachmentRecord?, AttachmentStoreError>) -> Void) {
        let record = lock.withLock { _ -> AttachmentRecord? in
            guard var record = records[id] else { return nil }
            record.sessionDeleted = deletedSessions.contains(record.sessionID)
            return record
        }
        completion(.success(record))
    }

    func read(
        id: String, variant: Int16, offset: Int64, length: Int,
        completion: @escaping @Sendable (Result<[UInt8], AttachmentStoreError>) -> Void
    ) {
        let bytes = lock.withLock { _ -> [UInt8]? in
            guard let file = variant == 0 ? files[id] : thumbnails[id] else { return nil }
            let start = Int(min(offset, Int64(file.count)))
            let slice = Array(file[start..<min(file.count, start + length)])
            reads.append((variant, offset, length, slice.count))
            return slice
        }
        completion(bytes.map { .success($0) } ?? .failure(.notFound))
    }

    var uploadCount: Int { lock.withLock { _ in uploads.count } }
    var lastUpload: Upload? { lock.withLock { _ in uploads.last } }
}
