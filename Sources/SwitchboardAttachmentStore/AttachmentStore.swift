import SwitchboardSystem
import Synchronization

/// The attachment workers: `workers` threads named `sb-attach-N`, each with
/// its own PostgreSQL connection (made again after a loss) and its own
/// bounded queue. An upload is pinned to one worker, so its pieces are
/// written in order with no lock; lookups and reads go to the least busy one.
///
/// Threads and not the event loops: libpq calls, fsync and image decoding
/// block. One queue per worker, not one shared: an upload's jobs must run in
/// order on the thread that holds its state.
public final class AttachmentStore: Sendable {
    /// The size of an `attachment_chunks` row (the last of a file is shorter).
    public static let chunkBytes = 256 * 1024

    private let databaseURL: String
    private let storage: AttachmentStorage
    private let inspector: ImageInspector?
    private let maxImageBytes: Int64
    private let writeRate: WriteRate?
    private let queues: [WorkQueue]
    private let threads = Mutex<[NamedThread]>([])
    private let started = Atomic<Bool>(false)
    private let rotation = Atomic<Int>(0)

    /// `maxImageBytes` bounds what is read back whole for the inspector (the
    /// server passes `attachments.max_bytes`); a larger image is refused.
    /// `maxWriteBytesPerSecond` paces what all workers write together (0: no bound).
    public init(
        databaseURL: String, storage: AttachmentStorage, workers: Int, queueCapacity: Int,
        inspector: ImageInspector?, maxImageBytes: Int64 = 64 * 1024 * 1024, maxWriteBytesPerSecond: Int = 0
    ) {
        self.databaseURL = databaseURL
        self.storage = storage
        self.inspector = inspector
        self.maxImageBytes = maxImageBytes
        writeRate = maxWriteBytesPerSecond > 0 ? WriteRate(bytesPerSecond: maxWriteBytesPerSecond) : nil
        queues = (0..<max(1, workers)).map { _ in WorkQueue(capacity: queueCapacity) }
    }

    deinit { stop() }

    /// The attachment workers' nice value: below the loops, the writer and the readers.
    public static let workerNice: Int32 = 10

    /// Starts the threads; each connects on its first job. Jobs submitted
    /// before `start` wait in the queues. A stopped store does not restart.
    public func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        threads.withLock { threads in
            for (index, queue) in queues.enumerated() {
                let worker = AttachmentWorker(
                    databaseURL: databaseURL, storage: storage, inspector: inspector, maxImageBytes: maxImageBytes,
                    writeRate: writeRate, queue: queue)
                threads.append(
                    NamedThread.spawn(name: "sb-attach-\(index)") {
                        // Uploads are bulk work beside the chat's latency: a loop with work
                        // preempts them (docs/benchmarks.md, "Attachments").
                        NamedThread.lowerCurrentPriority(nice: AttachmentStore.workerNice)
                        worker.run()
                    })
            }
        }
    }

    /// Refuses new work, lets each worker finish what is queued, joins them.
    /// Uploads not finished stay as they are: invisible, the orphan purge's.
    public func stop() {
        for queue in queues { queue.stop(takers: 1) }
        let handles = threads.withLock { threads -> [NamedThread] in
            defer { threads = [] }
            return threads
        }
        // A job that held the last reference runs deinit on a worker, which cannot join itself.
        for handle in handles where !handle.isCurrent { handle.join() }
    }

    /// Jobs waiting, all workers together.
    public var queueDepth: Int { queues.reduce(0) { $0 + $1.depth } }

    /// Starts an upload on the least busy worker, whose first job checks the
    /// session (in `new.workspaceID`, not soft-deleted) and that its stored
    /// bytes are under `sessionQuotaBytes`. Nil, at once, when that worker's
    /// queue is full or the store is stopped. A failed check makes later
    /// pieces no-ops (still reported to `onStored`) and `finish` report it.
    public func beginUpload(
        _ new: NewAttachment, sessionQuotaBytes: Int64, onStored: @escaping @Sendable (Int) -> Void
    ) -> AttachmentUpload? {
        let queue = leastBusy()
        let writer = UploadWriter(new: new, quota: sessionQuotaBytes, onStored: onStored)
        guard queue.submit({ context in writer.begin(context) }) else { return nil }
        return AttachmentUpload(queue: queue, writer: writer)
    }

    /// The committed attachment `id` (nil when there is none: not yet
    /// committed, purged, or not a UUID), with whether its session is soft-deleted.
    public func lookup(
        id: String, completion: @escaping @Sendable (Result<AttachmentRecord?, AttachmentStoreError>) -> Void
    ) {
        submit(orFail: completion) { context in completion(AttachmentReads.lookup(id: id, context)) }
    }

    /// Up to `length` bytes of `variant` (0 the original, 1 its thumbnail)
    /// from `offset`, however the bytes are split into chunks; empty at or past
    /// the end. `notFound` when there is no such committed attachment or thumbnail.
    public func read(
        id: String, variant: Int16, offset: Int64, length: Int,
        completion: @escaping @Sendable (Result<[UInt8], AttachmentStoreError>) -> Void
    ) {
        submit(orFail: completion) { context in
            completion(AttachmentReads.read(id: id, variant: variant, offset: offset, length: length, context))
        }
    }

    private func submit<T>(
        orFail completion: @escaping @Sendable (Result<T, AttachmentStoreError>) -> Void,
        _ job: @escaping AttachmentJob
    ) {
        if !leastBusy().submit(job) {
            completion(.failure(.unavailable("the attachment workers are busy")))
        }
    }

    /// The worker with the fewest jobs waiting, ties broken round-robin.
    private func leastBusy() -> WorkQueue {
        let start = rotation.wrappingAdd(1, ordering: .relaxed).oldValue
        var best = queues[start % queues.count]
        var bestDepth = best.depth
        for step in 1..<max(1, queues.count) where bestDepth > 0 {
            let queue = queues[(start + step) % queues.count]
            let depth = queue.depth
            if depth < bestDepth { (best, bestDepth) = (queue, depth) }
        }
        return best
    }

    // MARK: - Purges (blocking: the CLI and a background timer, never a loop)

    /// Deletes attachments never sent that are older than `olderThanSeconds`
    /// with their bytes, then what uploads that never committed left behind
    /// for `abandonedAfterSeconds` (chunks and files with no row, temporary
    /// files). Returns the number of attachments and abandoned uploads deleted.
    public func purgeOrphans(
        olderThanSeconds: Int, abandonedAfterSeconds: Int = 3600
    ) throws(AttachmentStoreError) -> Int {
        try AttachmentPurge(databaseURL: databaseURL, storage: storage).orphans(
            olderThanSeconds: olderThanSeconds, abandonedAfterSeconds: abandonedAfterSeconds)
    }

    /// Deletes the attachments of sessions soft-deleted more than `retentionDays` ago; returns how many.
    public func purgeDeleted(retentionDays: Int) throws(AttachmentStoreError) -> Int {
        try AttachmentPurge(databaseURL: databaseURL, storage: storage).deleted(retentionDays: retentionDays)
    }
}

/// One worker thread's body: its context is made on the thread and never leaves it.
final class AttachmentWorker: Sendable {
    private let databaseURL: String
    private let storage: AttachmentStorage
    private let inspector: ImageInspector?
    private let maxImageBytes: Int64
    private let writeRate: WriteRate?
    private let queue: WorkQueue

    init(
        databaseURL: String, storage: AttachmentStorage, inspector: ImageInspector?, maxImageBytes: Int64,
        writeRate: WriteRate?, queue: WorkQueue
    ) {
        self.databaseURL = databaseURL
        self.storage = storage
        self.inspector = inspector
        self.maxImageBytes = maxImageBytes
        self.writeRate = writeRate
        self.queue = queue
    }

    func run() {
        let context = AttachmentWorkerContext(
            database: AttachmentDatabase(databaseURL: databaseURL), storage: storage, inspector: inspector,
            maxImageBytes: maxImageBytes, writeRate: writeRate)
        while let job = queue.take() { job(context) }
    }
}
