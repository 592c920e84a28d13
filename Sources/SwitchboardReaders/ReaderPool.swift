import SwitchboardSystem
import Synchronization

/// What a reader thread runs; it handles its own errors.
public typealias ReaderJob = @Sendable (ChatQueries) -> Void

/// A fixed set of threads, each with its own ChatQueries, taking jobs from one bounded queue.
///
/// Why threads and not the event loops: libpq calls block, and these queries
/// (sessions, history, inbox, read positions) are off the hot path, so a few
/// blocking threads serve them without stalling any socket. One shared queue
/// rather than one per thread: any idle reader takes the next job, so a slow
/// query delays only the jobs behind it on its own thread.
public final class ReaderPool: Sendable {
    private let databaseURL: String
    private let threadCount: Int
    private let queue: JobQueue<ReaderJob>
    private let threads = Mutex<[NamedThread]>([])

    public init(databaseURL: String, threads: Int, queueCapacity: Int) {
        self.databaseURL = databaseURL
        threadCount = max(1, threads)
        queue = JobQueue(capacity: queueCapacity)
    }

    deinit { stop() }

    /// Starts the threads, named `sb-reader-N`; each connects on its first job.
    /// Jobs submitted before `start` wait in the queue. A stopped pool does not restart.
    public func start() {
        threads.withLock { threads in
            guard threads.isEmpty, !queue.isStopped else { return }
            for index in 0..<threadCount {
                let reader = ReaderThread(databaseURL: databaseURL, queue: queue)
                threads.append(NamedThread.spawn(name: "sb-reader-\(index)") { reader.run() })
            }
        }
    }

    /// Refuses new jobs, lets the threads finish the queued ones, joins them.
    public func stop() {
        queue.stop(takers: threadCount)
        let handles = threads.withLock { threads -> [NamedThread] in
            defer { threads = [] }
            return threads
        }
        // A job that held the last reference to the pool runs deinit on a
        // reader thread: that thread cannot join itself (it exits on its own).
        for handle in handles where !handle.isCurrent { handle.join() }
    }

    /// Runs `job` on a reader thread. Returns false at once (never blocks) when the queue is full or the pool is stopped.
    public func submit(_ job: @escaping @Sendable (ChatQueries) -> Void) -> Bool {
        queue.submit(job)
    }

    /// Jobs accepted and not yet taken by a reader.
    public var queueDepth: Int { queue.depth }
}

/// One reader thread's body. Its ChatQueries (and so its connection) is made
/// on the thread and never leaves it; the only shared state is the queue.
final class ReaderThread: Sendable {
    private let databaseURL: String
    private let queue: JobQueue<ReaderJob>

    init(databaseURL: String, queue: JobQueue<ReaderJob>) {
        self.databaseURL = databaseURL
        self.queue = queue
    }

    func run() {
        let queries = ChatQueries(databaseURL: databaseURL)
        while let job = queue.take() { job(queries) }
    }
}
