import SwitchboardWebhooks

/// What the dispatcher reports; the server connects it to Prometheus. Called
/// on dispatcher threads, so implementations must be cheap and thread-safe.
public protocol WebhookDeliveryMetrics: Sendable {
    /// An attempt ended: how (`success`, `http_error`, `timeout`, ...), and
    /// the request's duration.
    func attemptEnded(_ kind: AttemptOutcomeKind, requestSeconds: Double)
    /// A delivery got its 2xx, `secondsSinceCommit` after its event committed.
    func delivered(secondsSinceCommit: Double)
    /// A claim or a record failed (the database is down or slow).
    func queueFailed(_ operation: DeliveryQueueOperation)
}

public enum DeliveryQueueOperation: String, Sendable {
    case claim, record, release
}

/// Metrics that go nowhere.
public struct NoWebhookDeliveryMetrics: WebhookDeliveryMetrics {
    public init() {}
    public func attemptEnded(_ kind: AttemptOutcomeKind, requestSeconds: Double) {}
    public func delivered(secondsSinceCommit: Double) {}
    public func queueFailed(_ operation: DeliveryQueueOperation) {}
}
