import SwitchboardSystem
import Synchronization

/// The batched message writer: one thread with `configuration.connections`
/// PostgreSQL connections ("lanes") and one queue, that stores `send`
/// commands from every event loop in batches, one statement and one commit
/// per batch, and reports each batch's results through `sink` only after its
/// commit.
///
/// A session's commands are stored and numbered in submission order: they
/// are taken in that order, and all of a session's batches on the wire are
/// on one connection at any time (`LanePlan`). The function takes each
/// batch's session rows under lock, which keeps `seq` gap-free even between
/// gateway nodes that write the same session.
///
/// `submit` may be called from any thread; it takes one short mutex and
/// never waits for the database. `sink` runs on the writer's thread, once
/// per batch: it must be thread-safe, hand the results on (e.g. post them to
/// the loops) and return.
public final class BatchWriter: Sendable {
    public let configuration: WriterConfiguration
    private let queue: SubmitQueue
    private let metrics: WriterMetrics
    private let sink: @Sendable (WriterBatchResult) -> Void
    private let connectionEvents: @Sendable (WriterConnectionEvent) -> Void
    private let thread = Mutex<NamedThread?>(nil)

    /// `connectionEvents` runs on the writer's thread (never an event loop's),
    /// like `sink`: the place to log why the writer has no connection.
    public init(
        configuration: WriterConfiguration,
        connectionEvents: @escaping @Sendable (WriterConnectionEvent) -> Void = { _ in },
        sink: @escaping @Sendable (WriterBatchResult) -> Void
    ) {
        self.configuration = configuration
        self.sink = sink
        self.connectionEvents = connectionEvents
        metrics = WriterMetrics()
        // Not woken at the split mark: below it the first connection's commit
        // (which wakes the thread) holds most sessions' next batch anyway,
        // and a saturated writer would be woken after every take.
        queue = SubmitQueue(
            capacity: configuration.queueCapacity * configuration.connections,
            fullBatch: configuration.maxBatchMessages)
    }

    deinit { stop() }

    /// Starts the writer's thread, which connects (and keeps reconnecting).
    /// Commands submitted before the first connection wait in the queue.
    public func start() {
        thread.withLock { thread in
            guard thread == nil, queue.status != .stopped else { return }
            let loop = WriterLoop(
                configuration: configuration, queue: queue, metrics: metrics, connectionEvents: connectionEvents,
                sink: sink)
            thread = NamedThread.spawn(name: "sb-writer") { loop.run() }
        }
    }

    /// Refuses new commands, fails the queued ones with `.unavailable`, waits
    /// briefly for batches already sent to commit, and joins the thread.
    public func stop() {
        queue.stop()
        let handle = thread.withLock { thread -> NamedThread? in
            defer { thread = nil }
            return thread
        }
        handle?.join()
    }

    /// Queues one command. Never blocks beyond a short mutex.
    public func submit(_ command: WriteCommand) -> SubmitOutcome {
        if let reason = command.invalidReason { return .invalid(reason) }
        let home =
            configuration.connections == 1 ? 0 : Self.home(of: command.sessionID, among: configuration.connections)
        return queue.submit(command, home: home, metrics: metrics)
    }

    /// True while every connection of the writer is working.
    public var isConnected: Bool { metrics.connected.load(ordering: .relaxed) }

    /// Commands accepted and not yet sent; cheaper than `statistics`.
    public var queuedCommands: Int { queue.depth }

    /// More commands wait than one batch of every connection takes: the
    /// writer is not keeping up with what arrives (at a steady rate it keeps
    /// up with, what waits between two batches is less than a batch).
    public var isBehind: Bool { queuedCommands >= configuration.maxBatchMessages * configuration.connections }

    /// The writer's counters.
    public var statistics: WriterStatistics {
        metrics.snapshot(queueDepth: queuedCommands)
    }

    /// The home connection of a session: FNV-1a over the id's hex digits,
    /// case-folded and without dashes, so every spelling of a UUID (which
    /// `submit` has validated) has the same home, in every process and run.
    static func home(of sessionID: String, among count: Int) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in sessionID.utf8 where byte != UInt8(ascii: "-") {
            // ASCII letters: setting bit 5 lower-cases; digits already have it set.
            hash = (hash ^ UInt64(byte | 0x20)) &* 0x0000_0100_0000_01b3
        }
        return Int(hash % UInt64(count))
    }
}
