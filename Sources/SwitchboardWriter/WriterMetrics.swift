import Synchronization

/// The writer's counters, shared by its shards. Counters that `submit`
/// touches are atomics; the rest change once per batch on a writer thread,
/// where one short lock per batch costs nothing.
final class WriterMetrics: Sendable {
    let overloaded = Atomic<Int>(0)
    /// Shards holding a working connection.
    let connectedShards = Atomic<Int>(0)
    /// Batches sent and not yet answered, over every shard (each shard adds
    /// and removes its own).
    let batchesInFlight = Atomic<Int>(0)
    /// Partial batches that waited for another shard's commit (`CommitTurns`),
    /// by what ended the wait: that commit, or the limit.
    let turnWaitsEndedByCommit = Atomic<Int>(0)
    let turnWaitsEndedByLimit = Atomic<Int>(0)
    let shards: Int

    init(shards: Int) { self.shards = shards }

    private struct PerBatch {
        var batchesCommitted = 0
        var messagesStored = 0
        var duplicates = 0
        var noSession = 0
        var badAttachments = 0
        var failures = 0
        var unavailable = 0
        var reconnects = 0
        var batchSize = WriterHistogram(bounds: WriterHistogram.batchSizeBounds)
        var commitLatency = WriterHistogram(bounds: WriterHistogram.latencyBounds)
    }

    private let perBatch = Mutex(PerBatch())

    func recordCommitted(
        size: Int, latencyMicroseconds: Int, stored: Int, duplicates: Int, noSession: Int, badAttachments: Int
    ) {
        perBatch.withLock {
            $0.batchesCommitted += 1
            $0.messagesStored += stored
            $0.duplicates += duplicates
            $0.noSession += noSession
            $0.badAttachments += badAttachments
            $0.batchSize.record(size)
            $0.commitLatency.record(latencyMicroseconds)
        }
    }

    func recordFailed(_ count: Int) { perBatch.withLock { $0.failures += count } }
    func recordUnavailable(_ count: Int) { perBatch.withLock { $0.unavailable += count } }
    func recordReconnect() { perBatch.withLock { $0.reconnects += 1 } }

    func recordTurnWait(endedByLimit: Bool) {
        if endedByLimit {
            turnWaitsEndedByLimit.add(1, ordering: .relaxed)
        } else {
            turnWaitsEndedByCommit.add(1, ordering: .relaxed)
        }
    }

    func snapshot(queueDepth: Int) -> WriterStatistics {
        perBatch.withLock {
            WriterStatistics(
                queueDepth: queueDepth,
                batchesInFlight: batchesInFlight.load(ordering: .relaxed),
                batchesCommitted: $0.batchesCommitted,
                messagesStored: $0.messagesStored,
                duplicates: $0.duplicates,
                noSession: $0.noSession,
                badAttachments: $0.badAttachments,
                failures: $0.failures,
                unavailable: $0.unavailable,
                overloaded: overloaded.load(ordering: .relaxed),
                reconnects: $0.reconnects,
                turnWaitsEndedByCommit: turnWaitsEndedByCommit.load(ordering: .relaxed),
                turnWaitsEndedByLimit: turnWaitsEndedByLimit.load(ordering: .relaxed),
                connected: connectedShards.load(ordering: .relaxed) == shards,
                batchSize: $0.batchSize,
                commitLatencyMicroseconds: $0.commitLatency)
        }
    }
}
