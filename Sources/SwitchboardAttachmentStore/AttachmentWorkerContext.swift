import SwitchboardSystem

/// What an attachment worker runs, with the worker's own state.
typealias AttachmentJob = @Sendable (AttachmentWorkerContext) -> Void

/// One worker's queue: new work bounded (`submit`), the rest of an accepted
/// upload always taken (`submitContinuation`).
typealias WorkQueue = JobQueue<AttachmentJob>

/// What a worker thread's jobs share: its connection, the storage and the
/// inspector. Made on the thread and never leaves it.
final class AttachmentWorkerContext {
    let database: AttachmentDatabase
    let storage: AttachmentStorage
    let layout: FileLayout?
    let inspector: ImageInspector?
    let maxImageBytes: Int64
    /// Paces what the workers write together; nil: no bound.
    let writeRate: WriteRate?
    /// Whether this thread has made sure `<path>/tmp` exists.
    var temporaryFolderReady = false

    init(
        database: AttachmentDatabase, storage: AttachmentStorage, inspector: ImageInspector?, maxImageBytes: Int64,
        writeRate: WriteRate? = nil
    ) {
        self.writeRate = writeRate
        self.database = database
        self.storage = storage
        if case .filesystem(let path) = storage { layout = FileLayout(root: path) } else { layout = nil }
        self.inspector = inspector
        self.maxImageBytes = maxImageBytes
    }
}
