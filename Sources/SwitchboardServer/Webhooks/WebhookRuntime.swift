import Logging
import SwitchboardMetrics
import SwitchboardReaders
import SwitchboardWebhookDelivery
import SwitchboardWebhooks

/// What this node runs for webhooks (docs/webhooks.md): the dispatcher on
/// the outbox, woken by the writer's commits that wrote events, the outbox
/// gauges, and the API's creation-time check of a target's addresses.
final class WebhookRuntime: Sendable {
    let dispatcher: WebhookDispatcher
    private let sampler: WebhookOutboxSampler

    /// `gatewayBusy`: whether this node is saturated: its writer behind (`BatchWriter.isBehind`) or an event loop with no idle time (`LoopSaturation`).
    init(
        configuration: Configuration, hooks: WebhookHooks, metrics: GatewayMetrics, logger: Logger,
        gatewayBusy: @escaping @Sendable () -> Bool
    ) {
        var settings = WebhookDeliverySettings()
        settings.threads = configuration.webhooksThreads
        settings.maxConcurrent = configuration.webhooksMaxConcurrent
        settings.maxConcurrentPerEndpoint = configuration.webhooksMaxConcurrentPerEndpoint
        settings.holdRounds = configuration.webhooksHoldRounds
        settings.busySharePercent = configuration.webhooksDispatchBusySharePercent
        settings.connectTimeoutSeconds = configuration.webhooksConnectTimeoutSeconds
        settings.timeoutSeconds = configuration.webhooksTimeoutSeconds
        settings.pollIntervalMilliseconds = configuration.webhooksPollIntervalMilliseconds
        settings.allowPrivateTargets = configuration.webhooksAllowPrivateTargets
        settings.retryScale = configuration.webhooksRetryScale
        dispatcher = WebhookDispatcher(
            queue: PostgresDeliveryQueue(
                databaseURL: configuration.databaseURL, disableAfterHours: configuration.webhooksDisableAfterHours),
            settings: settings, metrics: GatewayWebhookMetrics(metrics: metrics), logger: logger,
            gatewayBusy: gatewayBusy)
        sampler = WebhookOutboxSampler(databaseURL: configuration.databaseURL, metrics: metrics, logger: logger)
        let dispatcher = dispatcher
        hooks.setWakeup { dispatcher.wake() }
    }

    /// The API's check, on a reader thread: every address the host resolves to
    /// must be public. A host that does not resolve (yet) passes: the
    /// dispatcher checks each connection's address again, and its delivery
    /// log says why it could not connect.
    static func installTargetCheck(on hooks: WebhookHooks) {
        hooks.setTargetCheck { url in
            do throws(TargetCheckError) {
                _ = try TargetResolver.check(url: url, allowPrivate: false)
                return nil
            } catch {
                if case .unresolvable = error { return nil }
                return error.description
            }
        }
    }

    func start() throws(WebhookHTTPError) {
        try dispatcher.start()
        sampler.start()
    }

    func stop() {
        sampler.stop()
        dispatcher.stop()
    }
}
