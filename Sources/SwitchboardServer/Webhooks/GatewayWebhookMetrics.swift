import SwitchboardMetrics
import SwitchboardWebhookDelivery
import SwitchboardWebhooks

/// The dispatcher's reports, as the gateway's Prometheus metrics.
struct GatewayWebhookMetrics: WebhookDeliveryMetrics {
    let metrics: GatewayMetrics

    func attemptEnded(_ kind: AttemptOutcomeKind, requestSeconds: Double) {
        metrics.webhookAttempts(outcome: kind.description).increment()
        metrics.webhookRequestSeconds.observe(requestSeconds)
    }

    func delivered(secondsSinceCommit: Double) {
        // Clocks of two hosts (a node and the database) may disagree by a little: no negative latencies.
        metrics.webhookDeliveryLatency.observe(max(0, secondsSinceCommit))
    }

    func queueFailed(_ operation: DeliveryQueueOperation) {
        metrics.webhookQueueErrors[operation.rawValue]?.increment()
    }
}
