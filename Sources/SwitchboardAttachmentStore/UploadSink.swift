/// Where one upload's bytes go while it streams in, on its worker thread.
/// Nothing a sink writes is visible until the `attachments` row commits.
protocol UploadSink: AnyObject {
    /// Takes `bytes`; returns how many bytes of this upload became stored by it
    /// (PostgreSQL storage keeps bytes until it has a whole chunk).
    func append(_ bytes: [UInt8], _ context: AttachmentWorkerContext) throws(AttachmentStoreError) -> Int

    /// Stores what is kept and makes the original durable; returns the bytes that became stored.
    func seal(_ context: AttachmentWorkerContext) throws(AttachmentStoreError) -> Int

    /// The whole original (`size` bytes), for the image inspector.
    func readAll(size: Int64, _ context: AttachmentWorkerContext) throws(AttachmentStoreError) -> [UInt8]

    /// Before the committing transaction: files are put in place.
    func place(thumbnail: [UInt8]?, _ context: AttachmentWorkerContext) throws(AttachmentStoreError)

    /// Inside the committing transaction: the thumbnail's chunks, and the proof
    /// that every chunk of the original is still there.
    func commit(thumbnail: [UInt8]?, size: Int64, _ context: AttachmentWorkerContext) throws(AttachmentStoreError)

    /// Deletes whatever was written (best effort: what remains is the orphan purge's).
    func discard(_ context: AttachmentWorkerContext)
}
