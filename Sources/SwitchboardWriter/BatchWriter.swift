import CSystem
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The batched message writer: a dedicated thread with its own PostgreSQL
/// connection that stores `send` commands from every event loop in batches,
/// one statement and one commit per batch, and reports each batch's results
/// through `sink` only after its commit.
///
/// `submit` may be called from any thread; it takes one short mutex and never
/// waits for the database. `sink` runs on the writer thread, once per batch:
/// it must hand the results on (e.g. post them to the loops) and return.
public final class BatchWriter: Sendable {
    public let configuration: WriterConfiguration
    private let queue: SubmitQueue
    private let metrics = WriterMetrics()
    private let sink: @Sendable (WriterBatchResult) -> Void
    private let thread = Mutex<pthread_t?>(nil)

    public init(configuration: WriterConfiguration, sink: @escaping @Sendable (WriterBatchResult) -> Void) {
        self.configuration = configuration
        self.sink = sink
        queue = SubmitQueue(capacity: configuration.queueCapacity)
    }

    deinit { stop() }

    /// Starts the writer thread, which connects (and keeps reconnecting).
    /// Commands submitted before the first connection wait in the queue.
    public func start() {
        thread.withLock { thread in
            guard thread == nil, queue.status != .stopped else { return }
            let loop = WriterLoop(configuration: configuration, queue: queue, metrics: metrics, sink: sink)
            let context = Unmanaged.passRetained(loop).toOpaque()
            var handle = pthread_t()
            let rc = pthread_create(
                &handle, nil,
                { raw in
                    let loop = Unmanaged<WriterLoop>.fromOpaque(raw!).takeRetainedValue()
                    loop.run()
                    return nil
                }, context)
            precondition(rc == 0, "pthread_create failed: \(rc)")
            _ = pthread_setname_np(handle, "sb-writer")
            thread = handle
        }
    }

    /// Refuses new commands, fails the queued ones with `.unavailable`, waits
    /// briefly for batches already sent to commit, and joins the thread.
    public func stop() {
        queue.stop()
        let handle = thread.withLock { thread -> pthread_t? in
            defer { thread = nil }
            return thread
        }
        if let handle { _ = pthread_join(handle, nil) }
    }

    /// Queues one command. Never blocks beyond a short mutex.
    public func submit(_ command: WriteCommand) -> SubmitOutcome {
        if let reason = command.invalidReason { return .invalid(reason) }
        return queue.submit(command, metrics: metrics)
    }

    /// True while the writer holds a working connection.
    public var isConnected: Bool { metrics.connected.load(ordering: .relaxed) }

    public var statistics: WriterStatistics { metrics.snapshot(queueDepth: queue.depth) }
}
