import Logging
import SwitchboardMetrics
import SwitchboardReaders
import SwitchboardSystem
import Synchronization

/// Samples the outbox's depth and oldest due age per endpoint, and the
/// backlog of messages not yet made into events, into the metrics every few
/// seconds, on a thread of its own: the queries block on the database, and a
/// scrape (served on an event loop) must not. An endpoint whose deliveries
/// are all done reads 0, not its last value.
///
/// The query counts every pending delivery: over a million it takes about
/// a fifth of a second in the database. The pause after a sample is at
/// least 20 times what the sample took, so sampling never takes more than a
/// twenty-first of one core of the database: its connection runs the count
/// in one process, without JIT (`BackgroundRole.sessionSettings`), so that
/// the wall time measured is the CPU spent.
final class WebhookOutboxSampler: Sendable {
    private let queries: Mutex<ChatQueries>
    private let metrics: GatewayMetrics
    private let logger: Logger
    private let intervalMilliseconds: Int
    private let background = BackgroundThread(name: "sb-webhook-gauges")
    /// Endpoints seen with pending deliveries, to zero when they have none.
    private let seen = Mutex<Set<String>>([])

    init(databaseURL: String, metrics: GatewayMetrics, logger: Logger, intervalMilliseconds: Int = 5000) {
        queries = Mutex(ChatQueries(databaseURL: databaseURL, role: .webhookSampler))
        self.metrics = metrics
        self.logger = logger
        self.intervalMilliseconds = intervalMilliseconds
    }

    func start() {
        background.start { [self] in
            while !background.isStopped {
                let started = MonotonicClock.nanoseconds()
                sample()
                let took = Int((MonotonicClock.nanoseconds() - started) / 1_000_000)
                background.pause(milliseconds: max(intervalMilliseconds, 20 * took))
            }
        }
    }

    func stop() { background.stop() }

    func sample() {
        do throws(QueryError) {
            let (gauges, backlog) = try queries.withLock { queries throws(QueryError) in
                (try queries.webhookOutboxGauges(), try queries.webhookBacklogGauge())
            }
            // The expander's catching_up says only that its last pass left work; while it waits for its
            // dispatcher's room, this is the depth behind it.
            metrics.webhookBacklogMessages.set(backlog.messages)
            metrics.webhookBacklogOldestSeconds.set(backlog.oldestSeconds)
            let now = Set(gauges.map(\.endpointID))
            for gauge in gauges {
                metrics.setWebhookOutbox(
                    endpoint: gauge.endpointID, pending: gauge.pending, oldestDueSeconds: gauge.oldestDueSeconds)
            }
            let drained = seen.withLock { seen in
                defer { seen = now }
                return seen.subtracting(now)
            }
            for endpoint in drained { metrics.setWebhookOutbox(endpoint: endpoint, pending: 0, oldestDueSeconds: 0) }
        } catch {
            logger.debug("webhook outbox gauges not sampled: \(error)")
        }
    }
}
