/// Where one upload's bytes go while it streams in, on its worker thread.
/// Nothing a sink writes is visible until the `attachments` row commits.
protocol UploadSink: AnyObject {
    /// Takes `bytes`; returns how many bytes of this upload became stored by it
    /// (PostgreSQL storage keeps bytes until it has a whole chunk).
    func append(_ bytes: [UInt8], _ context: AttachmentWorkerContext) throws(AttachmentStoreError) -> Int

    /// Makes the original durable, or leaves its last piece to the commit
    /// (`commitShare`); returns the bytes that became stored.
    func seal(_ context: AttachmentWorkerContext) throws(AttachmentStoreError) -> Int

    /// The whole original (`size` bytes), for the image inspector.
    func readAll(size: Int64, _ context: AttachmentWorkerContext) throws(AttachmentStoreError) -> [UInt8]

    /// Before the commit: files are put in place, or the thumbnail's chunks
    /// written (invisible until the row commits).
    func place(thumbnail: [UInt8]?, _ context: AttachmentWorkerContext) throws(AttachmentStoreError)

    /// What the commit checks and stores: the number of chunks of the original
    /// that must be there once it ran, and the last of them when the commit
    /// stores it (both nil: the bytes are files).
    var commitShare: (chunks: Int32?, tail: [UInt8]?) { get }

    /// The commit stored the tail: returns its bytes, now stored.
    func committed() -> Int

    /// Deletes whatever was written (best effort: what remains is the orphan purge's).
    func discard(_ context: AttachmentWorkerContext)
}
