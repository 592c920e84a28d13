import Synchronization

/// The writer's counters, shared by `submit`'s callers and the writer's
/// thread. Counters that `submit` touches are atomics; the rest change once
/// per batch on the writer thread, where one short lock per batch costs
/// nothing.
final class WriterMetrics: Sendable {
    let overloaded = Atomic<Int>(0)
    /// Every connection of the writer is working.
    let connected = Atomic<Bool>(false)
    /// Batches sent and not yet answered, over every connection.
    let batchesInFlight = Atomic<Int>(0)
    /// Batches sent on the first connection, and on the others.
    let batchesSentOnFirst = Atomic<Int>(0)
    let batchesSentOnOthers = Atomic<Int>(0)

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
                batchesSentOnFirst: batchesSentOnFirst.load(ordering: .relaxed),
                batchesSentOnOthers: batchesSentOnOthers.load(ordering: .relaxed),
                connected: connected.load(ordering: .relaxed),
                batchSize: $0.batchSize,
                commitLatencyMicroseconds: $0.commitLatency)
        }
    }
}
