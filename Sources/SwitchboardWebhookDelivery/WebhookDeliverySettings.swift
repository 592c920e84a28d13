import SwitchboardWebhooks

/// The dispatcher's settings, each the value of a configuration key (the
/// server's configuration fills them; docs/webhooks.md lists them).
public struct WebhookDeliverySettings: Sendable, Equatable {
    /// `webhooks.threads`: dispatcher threads, each with its own HTTP client.
    public var threads = 2
    /// `webhooks.max_concurrent`: requests in flight at once, over all threads.
    public var maxConcurrent = 64
    /// `webhooks.max_concurrent_per_endpoint`: requests in flight to one endpoint.
    public var maxConcurrentPerEndpoint = 16
    /// `webhooks.hold_rounds`: deliveries a node holds (in flight or waiting
    /// for a slot), in rounds of requests: this many times `maxConcurrent` in
    /// all and `maxConcurrentPerEndpoint` per endpoint.
    public var holdRounds = 64
    /// `webhooks.connect_timeout_s`
    public var connectTimeoutSeconds = 5
    /// `webhooks.timeout_s`: a whole request, connecting included; no 2xx by then is a failed attempt.
    public var timeoutSeconds = 10
    /// `webhooks.poll_interval_ms`: how often an idle thread asks the queue
    /// for due deliveries (retries come due without anyone calling `wake`).
    public var pollIntervalMilliseconds = 1000
    /// `webhooks.dispatch_busy_share_percent`: while this node's writer is
    /// behind, the share of each thread's time its claims and records may
    /// take (100: never yield).
    public var busySharePercent = 5
    /// `webhooks.allow_private_targets`: lets deliveries reach loopback,
    /// private and link-local addresses (development and tests).
    public var allowPrivateTargets = false
    /// 1 / `webhooks.retry_divisor`, for tests only: multiplies the retry delays.
    public var retryScale = 1.0

    public init() {}

    /// Seconds left to record an outcome after the request's timeout.
    static let recordMarginSeconds = 5

    /// The lease each claim takes: a delivery may wait up to one timeout for a
    /// slot of its endpoint, then its request takes at most another, and the
    /// margin records the outcome. Past it, another claimer may take it.
    public var leaseSeconds: Int { 2 * timeoutSeconds + Self.recordMarginSeconds }

    var maxHeld: Int { holdRounds * maxConcurrent }
    var maxHeldPerEndpoint: Int { holdRounds * maxConcurrentPerEndpoint }

    /// Deliveries one thread holds at most: an even share of `maxHeld`, so
    /// that one thread's claim does not leave the others idle.
    var perThreadCapacity: Int { (maxHeld + threads - 1) / threads }

    var clientSettings: WebhookHTTPClient.Settings {
        WebhookHTTPClient.Settings(
            connectTimeoutMilliseconds: connectTimeoutSeconds * 1000, timeoutMilliseconds: timeoutSeconds * 1000,
            allowPrivateTargets: allowPrivateTargets, maximumIdleConnections: max(64, 4 * maxConcurrent))
    }

    var retrySchedule: RetrySchedule { RetrySchedule(scale: retryScale) }
}
