import Logging
import SwitchboardMetrics
import SwitchboardReaders
import SwitchboardSystem
import Synchronization

/// Makes the webhook events of stored messages, on a thread of its own: it
/// takes the backlog the writer's batches leave (migration 21) and writes
/// each batch's events and deliveries (`ChatQueries.expandWebhookBacklog`),
/// so that the writer's transaction pays one backlog row per batch instead of
/// two rows and a built body per message. A commit that left work wakes it
/// (`wake`), so events follow their messages within milliseconds while the
/// writer keeps up; while this node's writer is behind it yields
/// (`AfterCommitPacing`), and webhooks fall behind rather than
/// acknowledgements. Every node runs one, whether or not it dispatches; they
/// share the backlog without coordination (`SKIP LOCKED`).
final class WebhookExpander: Sendable {
    private let queries: Mutex<ChatQueries>
    private let logger: Logger
    private let metrics: GatewayMetrics
    private let pacing: AfterCommitPacing
    private let writerBusy: @Sendable () -> Bool
    private let eventsWritten: @Sendable () -> Void
    private let background = BackgroundThread(name: "sb-webhook-expand")
    private let wakeup: EventFD?

    /// `writerBusy`: whether this node's writer is behind (`BatchWriter.isBehind`);
    /// `eventsWritten`: wakes the dispatcher after a pass that wrote events.
    init(
        databaseURL: String, pacing: AfterCommitPacing, metrics: GatewayMetrics, logger: Logger,
        writerBusy: @escaping @Sendable () -> Bool, eventsWritten: @escaping @Sendable () -> Void
    ) {
        // A pass lost in a crash is made again (its backlog rows come back with
        // it): no commit waits for the disk.
        queries = Mutex(ChatQueries(databaseURL: databaseURL, waitsForDisk: false))
        self.pacing = pacing
        self.metrics = metrics
        self.writerBusy = writerBusy
        self.eventsWritten = eventsWritten
        self.logger = logger
        do {
            wakeup = try EventFD()
        } catch {
            // Without one it polls every backlog interval: slower webhooks, nothing lost.
            logger.warning("webhook expander: no eventfd (\(error)); polling instead")
            wakeup = nil
        }
    }

    // Closed only here: the writer stops after the expander, and its last
    // commits still call `wake`, which must never write to a descriptor
    // number the process has reused.
    deinit { wakeup?.close() }

    func start() { background.start { [self] in run() } }

    func stop() { background.stop() }

    /// A batch committed here left work: the next pass runs now, unless the
    /// expander is yielding to a busy writer. Harmless once stopped.
    func wake() { wakeup?.signal() }

    private func run() {
        var failing = false
        while !background.isStopped {
            var wait = pacing.idleMilliseconds
            var yielding = false
            do throws(QueryError) {
                let started = MonotonicClock.nanoseconds()
                let pass = try queries.withLock { queries throws(QueryError) in try queries.expandWebhookBacklog() }
                let took = Int((MonotonicClock.nanoseconds() - started) / 1000)
                if pass.events > 0 {
                    metrics.webhookEventsWritten.increment(by: pass.events)
                    eventsWritten()
                }
                metrics.webhookCatchingUp.set(pass.more ? 1 : 0)
                if failing { logger.info("webhook events are made again") }
                failing = false
                let busy = writerBusy()
                wait = pacing.wait(more: pass.more, passMicroseconds: took, writerBusy: busy)
                yielding = pass.more && busy
            } catch {
                if !failing { logger.warning("making webhook events failed (retrying every second): \(error)") }
                failing = true
                wait = max(wait, 1000)
            }
            // Yielding, it sleeps its share out: each of the writer's commits would otherwise wake it.
            background.pause(milliseconds: wait, wakeup: yielding || failing ? nil : wakeup)
        }
    }
}
