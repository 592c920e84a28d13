import Logging
import SwitchboardSystem
import SwitchboardWebhooks
import Synchronization

/// Delivers webhooks: `threads` threads of its own (never an event loop)
/// claim due deliveries from the queue, POST them signed, and record each
/// attempt's outcome, with at most `maxConcurrent` requests in flight in all
/// and `maxConcurrentPerEndpoint` per endpoint (docs/webhooks.md, "Delivery").
///
/// At least once: an attempt whose outcome is not recorded (the process died,
/// the database was down) is due again when its lease ends, and sent again.
public final class WebhookDispatcher: Sendable {
    private let context: DispatchContext
    private let threads = Mutex<[NamedThread]>([])

    public init(
        queue: any DeliveryQueue, settings: WebhookDeliverySettings,
        metrics: any WebhookDeliveryMetrics = NoWebhookDeliveryMetrics(),
        logger: Logger = Logger(label: "switchboard.webhooks")
    ) {
        // The server's configuration checks the ranges; 0 would mean "no timeout" to libcurl.
        precondition(
            settings.threads >= 1 && settings.timeoutSeconds >= 1 && settings.connectTimeoutSeconds >= 1
                && settings.pollIntervalMilliseconds >= 1,
            "webhooks: threads, timeouts and the poll interval are at least 1")
        context = DispatchContext(queue: queue, settings: settings, metrics: metrics, logger: logger)
    }

    deinit { stop() }

    /// Starts the threads; they claim at once. Throws when libcurl cannot be set up.
    public func start() throws(WebhookHTTPError) {
        precondition(threads.withLock { $0.isEmpty } && !context.isStopping, "a dispatcher starts once")
        var workers: [DispatchWorker] = []
        do {
            for _ in 0..<context.settings.threads { workers.append(try DispatchWorker(context: context)) }
        } catch {
            for worker in workers { worker.wake.close() }
            throw error
        }
        context.wakeDescriptors.withLock { $0 = workers.map(\.wake) }
        let spawned = workers.enumerated().map { index, worker in
            NamedThread.spawn(name: "sb-webhooks-\(index)") { worker.run() }
        }
        threads.withLock { $0 = spawned }
    }

    /// Something was just committed that may have made deliveries due: every
    /// thread claims now instead of at its next poll. Cheap and non-blocking
    /// (an atomic increment and an eventfd write per thread): the server calls
    /// it after each commit that wrote events.
    public func wake() {
        context.wakeGeneration.add(1, ordering: .releasing)
        context.wakeAll()
    }

    /// Stops claiming, lets the requests in flight end (within the request
    /// timeout), records their outcomes, and joins the threads. Deliveries
    /// claimed but not started are left for their leases to run out.
    public func stop() {
        guard !context.stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        context.wakeAll()
        let stopped = threads.withLock { threads in
            defer { threads.removeAll() }
            return threads
        }
        for thread in stopped { thread.join() }
        context.wakeDescriptors.withLock { descriptors in
            for descriptor in descriptors { descriptor.close() }
            descriptors.removeAll()
        }
    }
}
