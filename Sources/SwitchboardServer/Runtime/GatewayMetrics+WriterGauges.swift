import SwitchboardMetrics
import SwitchboardWriter
import Synchronization

extension GatewayMetrics {
    /// The writer's queue depth, reconnects and batches by connection, read from its own
    /// counters when /metrics is scraped. The writer is held weakly: the
    /// writer's sink holds these metrics.
    func export(_ writer: BatchWriter) {
        let reconnects = ReportedCount(databaseReconnects(.writer))
        let onFirst = ReportedCount(writerBatchesSentOnFirst)
        let onOthers = ReportedCount(writerBatchesSentOnOthers)
        setPullSource(for: writerQueueDepth) { [weak writer] in
            guard let statistics = writer?.statistics else { return 0 }
            reconnects.report(statistics.reconnects)
            onFirst.report(statistics.batchesSentOnFirst)
            onOthers.report(statistics.batchesSentOnOthers)
            return Double(statistics.queueDepth)
        }
    }
}

/// A counter fed from one of the writer's own running totals: each scrape
/// adds what the total gained since the last.
private final class ReportedCount: Sendable {
    private let counter: CounterHandle
    private let reported = Atomic<Int>(0)

    init(_ counter: CounterHandle) { self.counter = counter }

    func report(_ total: Int) {
        let seen = reported.exchange(total, ordering: .relaxed)
        if total > seen { counter.increment(by: total - seen) }
    }
}
