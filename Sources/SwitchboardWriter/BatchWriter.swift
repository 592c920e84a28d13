import SwitchboardSystem
import Synchronization

/// The batched message writer: `configuration.connections` shards, each a
/// dedicated thread with its own PostgreSQL connection and queue, that store
/// `send` commands from every event loop in batches, one statement and one
/// commit per batch, and report each batch's results through `sink` only
/// after its commit.
///
/// A session's commands always go to the same shard (a stable hash of the
/// session id), so they are stored and numbered in submission order. The
/// function takes each batch's session rows under lock, which keeps `seq`
/// gap-free even between connections and gateway nodes that write the same
/// session. The shards' one coordination, when configured, is for cost, not
/// correctness: their partial batches take turns (`CommitTurns`).
///
/// `submit` may be called from any thread; it takes one short mutex (its
/// shard's) and never waits for the database. `sink` runs on the shards'
/// threads, once per batch, possibly on several threads at once: it must be
/// thread-safe, hand the results on (e.g. post them to the loops) and return.
public final class BatchWriter: Sendable {
    public let configuration: WriterConfiguration
    private let queues: [SubmitQueue]
    private let turns: CommitTurns?
    private let metrics: WriterMetrics
    private let sink: @Sendable (WriterBatchResult) -> Void
    private let connectionEvents: @Sendable (WriterConnectionEvent) -> Void
    private let threads = Mutex<[NamedThread]>([])

    /// `connectionEvents` runs on the shards' threads (never an event loop's),
    /// like `sink`: the place to log why a shard has no connection.
    public init(
        configuration: WriterConfiguration,
        connectionEvents: @escaping @Sendable (WriterConnectionEvent) -> Void = { _ in },
        sink: @escaping @Sendable (WriterBatchResult) -> Void
    ) {
        self.configuration = configuration
        self.sink = sink
        self.connectionEvents = connectionEvents
        metrics = WriterMetrics(shards: configuration.connections)
        queues = (0..<configuration.connections).map { _ in
            SubmitQueue(
                capacity: configuration.queueCapacity, fullBatch: configuration.maxBatchMessages)
        }
        turns =
            queues.count > 1 && configuration.turnWaitLimitMicroseconds > 0
            ? CommitTurns(
                limitNanoseconds: UInt64(configuration.turnWaitLimitMicroseconds) * 1_000,
                wakeups: queues.map(\.wakeup))
            : nil
    }

    deinit { stop() }

    /// Starts the shards' threads, which connect (and keep reconnecting).
    /// Commands submitted before a shard's first connection wait in its queue.
    public func start() {
        threads.withLock { threads in
            guard threads.isEmpty, queues[0].status != .stopped else { return }
            for queue in queues {
                let loop = WriterLoop(
                    configuration: configuration, shard: threads.count, queue: queue, metrics: metrics,
                    turns: turns, connectionEvents: connectionEvents, sink: sink)
                threads.append(NamedThread.spawn(name: "sb-writer-\(threads.count)") { loop.run() })
            }
        }
    }

    /// Refuses new commands, fails the queued ones with `.unavailable`, waits
    /// briefly for batches already sent to commit, and joins the threads.
    public func stop() {
        for queue in queues { queue.stop() }
        let handles = threads.withLock { threads -> [NamedThread] in
            defer { threads = [] }
            return threads
        }
        for handle in handles { handle.join() }
    }

    /// Queues one command on its session's shard. Never blocks beyond a short mutex.
    public func submit(_ command: WriteCommand) -> SubmitOutcome {
        if let reason = command.invalidReason { return .invalid(reason) }
        let queue = queues.count == 1 ? queues[0] : queues[Self.shard(of: command.sessionID, among: queues.count)]
        return queue.submit(command, metrics: metrics)
    }

    /// True while every shard holds a working connection.
    public var isConnected: Bool { metrics.connectedShards.load(ordering: .relaxed) == queues.count }

    /// Commands accepted and not yet sent (every shard); cheaper than `statistics`.
    public var queuedCommands: Int { queues.reduce(0) { $0 + $1.depth } }

    /// More commands wait than one batch of every shard takes: the writer is
    /// not keeping up with what arrives (at a steady rate it keeps up with,
    /// what waits between two batches is less than a batch).
    public var isBehind: Bool { queuedCommands >= configuration.maxBatchMessages * queues.count }

    /// Counters summed over the shards.
    public var statistics: WriterStatistics {
        metrics.snapshot(queueDepth: queuedCommands)
    }

    /// The shard of a session: FNV-1a over the id's hex digits, case-folded
    /// and without dashes, so every spelling of a UUID (which `submit` has
    /// validated) lands on the same shard, in every process and run.
    static func shard(of sessionID: String, among count: Int) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in sessionID.utf8 where byte != UInt8(ascii: "-") {
            // ASCII letters: setting bit 5 lower-cases; digits already have it set.
            hash = (hash ^ UInt64(byte | 0x20)) &* 0x0000_0100_0000_01b3
        }
        return Int(hash % UInt64(count))
    }
}
