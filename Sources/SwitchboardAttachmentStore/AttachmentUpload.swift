import Synchronization

/// One upload in progress, pinned to one attachment worker: its pieces, its
/// finish or abort run there in the order they were called. Every method
/// returns at once (nothing here waits for the disk or the database).
///
/// If the store is stopped, what is still called is answered on the calling
/// thread: pieces are reported stored (dropped) and `finish` fails `unavailable`.
public final class AttachmentUpload: Sendable {
    private let queue: WorkQueue
    private let writer: UploadWriter
    private let closed = Atomic<Bool>(false)

    init(queue: WorkQueue, writer: UploadWriter) {
        self.queue = queue
        self.writer = writer
    }

    /// An upload dropped without `finish` or `abort` is aborted.
    deinit {
        guard !closed.load(ordering: .acquiring) else { return }
        queueAbort()
    }

    public var id: String { writer.new.id }

    /// Queues `bytes` for the worker; `onStored` reports them once they are
    /// written (or dropped after a failure), which is when the caller's budget
    /// for them may be released. PostgreSQL storage writes whole chunks of
    /// `AttachmentStore.chunkBytes`: a caller must let at least that many bytes
    /// wait unreported before it stops sending pieces, or it waits forever.
    public func append(_ bytes: [UInt8]) {
        let writer = self.writer
        let count = bytes.count
        if !queue.submitContinuation({ context in writer.append(bytes, context) }) {
            writer.droppedOnStoppedStore(count)
        }
    }

    /// Ends the upload: `size` and `sha256` are what the caller counted and
    /// hashed of the pieces it appended. Inspects an image, stores its
    /// thumbnail, and commits the row (the quota checked again); `completion`
    /// runs on the worker thread.
    public func finish(
        type: String, size: Int64, sha256: String,
        completion: @escaping @Sendable (Result<AttachmentRecord, AttachmentStoreError>) -> Void
    ) {
        closed.store(true, ordering: .releasing)
        let writer = self.writer
        let accepted = queue.submitContinuation { context in
            writer.finish(type: type, size: size, sha256: sha256, context, completion: completion)
        }
        if !accepted { completion(.failure(.unavailable("the attachment store is stopped"))) }
    }

    /// Abandons the upload and deletes what was written of it. Pieces still
    /// queued are not written: a connection cut mid-upload stops costing the
    /// database and the write pace at once, not after its window is stored.
    public func abort() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queueAbort()
    }

    /// Marks the writer abandoned before the abort is queued, so that the
    /// pieces ahead of it in the queue are dropped instead of written.
    private func queueAbort() {
        let writer = self.writer
        writer.abandon()
        _ = queue.submitContinuation { context in writer.abort(context) }
    }
}
