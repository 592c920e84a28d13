import Logging
import SwitchboardMetrics
import SwitchboardReaders
import SwitchboardSystem
import Synchronization

/// Samples the outbox's depth and oldest due age per endpoint into the
/// metrics every few seconds, on a thread of its own: the query blocks on
/// the database, and a scrape (served on an event loop) must not. An
/// endpoint whose deliveries are all done reads 0, not its last value.
final class WebhookOutboxSampler: Sendable {
    private let queries: Mutex<ChatQueries>
    private let metrics: GatewayMetrics
    private let logger: Logger
    private let intervalMilliseconds: Int
    private let stopped = Atomic<Bool>(false)
    private let thread = Mutex<NamedThread?>(nil)
    /// Endpoints seen with pending deliveries, to zero when they have none.
    private let seen = Mutex<Set<String>>([])

    init(databaseURL: String, metrics: GatewayMetrics, logger: Logger, intervalMilliseconds: Int = 5000) {
        queries = Mutex(ChatQueries(databaseURL: databaseURL))
        self.metrics = metrics
        self.logger = logger
        self.intervalMilliseconds = intervalMilliseconds
    }

    func start() {
        thread.withLock { thread in
            guard thread == nil else { return }
            thread = NamedThread.spawn(name: "sb-webhook-gauges") { [self] in
                while !stopped.load(ordering: .relaxed) {
                    sample()
                    var waited = 0
                    while waited < intervalMilliseconds && !stopped.load(ordering: .relaxed) {
                        ThisProcess.sleep(milliseconds: 100)
                        waited += 100
                    }
                }
            }
        }
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        let handle = thread.withLock { thread -> NamedThread? in
            defer { thread = nil }
            return thread
        }
        handle?.join()
    }

    func sample() {
        do throws(QueryError) {
            let gauges = try queries.withLock { queries throws(QueryError) in try queries.webhookOutboxGauges() }
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
