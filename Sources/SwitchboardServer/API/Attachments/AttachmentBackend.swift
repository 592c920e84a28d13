import SwitchboardAttachmentStore

/// What the HTTP side needs of attachment storage (docs/attachments.md):
/// the gateway's `AttachmentStore` (its workers, on PostgreSQL or files), an
/// in-memory one in tests. Every method returns at once; completions and
/// `onStored` run on a storage thread, never on a loop.
protocol AttachmentBackend: AnyObject, Sendable {
    associatedtype Upload: AttachmentUploading

    /// Starts an upload; nil at once when no worker can take it (503). The
    /// session and its quota are checked on the worker, while the first pieces
    /// wait in their window. `onStored(n)`: n more appended bytes are stored
    /// (or dropped after a failure), so their window may take more.
    func beginUpload(
        _ new: NewAttachment, sessionQuotaBytes: Int64, onStored: @escaping @Sendable (Int) -> Void
    ) -> Upload?

    /// The committed attachment `id`, nil when there is none.
    func lookup(id: String, completion: @escaping @Sendable (Result<AttachmentRecord?, AttachmentStoreError>) -> Void)

    /// Up to `length` bytes of `variant` (0 the file, 1 its thumbnail) from
    /// `offset`; empty at or past the end.
    func read(
        id: String, variant: Int16, offset: Int64, length: Int,
        completion: @escaping @Sendable (Result<[UInt8], AttachmentStoreError>) -> Void)
}

/// One upload in progress on the storage side: its calls run there in the
/// order they were made.
protocol AttachmentUploading: AnyObject, Sendable {
    /// Queues a piece; `onStored` reports it later.
    func append(_ bytes: [UInt8])
    /// Commits the upload with what the caller counted and hashed of its pieces.
    func finish(
        type: String, size: Int64, sha256: String,
        completion: @escaping @Sendable (Result<AttachmentRecord, AttachmentStoreError>) -> Void)
    /// Abandons it; what was written is deleted.
    func abort()
}

extension AttachmentStore: AttachmentBackend {}
extension AttachmentUpload: AttachmentUploading {}
