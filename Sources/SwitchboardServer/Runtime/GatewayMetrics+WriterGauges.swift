import SwitchboardMetrics
import SwitchboardWriter
import Synchronization

extension GatewayMetrics {
    /// The writer's queue depth and reconnects, read from its own counters when
    /// /metrics is scraped. The writer is held weakly: the writer's sink holds these metrics.
    func export(_ writer: BatchWriter) {
        let reported = ReportedCount()
        let reconnects = databaseReconnects(.writer)
        setPullSource(for: writerQueueDepth) { [weak writer] in
            guard let statistics = writer?.statistics else { return 0 }
            let seen = reported.value.exchange(statistics.reconnects, ordering: .relaxed)
            if statistics.reconnects > seen { reconnects.increment(by: statistics.reconnects - seen) }
            return Double(statistics.queueDepth)
        }
    }
}

/// How many writer reconnects the counter has been given so far.
private final class ReportedCount: Sendable {
    let value = Atomic<Int>(0)
}
