import SwitchboardWebhookDelivery
import SwitchboardWebhooks
import Synchronization

/// Remembers what the dispatcher reported.
final class RecordingMetrics: WebhookDeliveryMetrics {
    private struct State {
        var attempts: [(kind: AttemptOutcomeKind, seconds: Double)] = []
        var latencies: [Double] = []
        var queueFailures: [DeliveryQueueOperation] = []
    }

    private let state = Mutex(State())

    var attemptKinds: [String] { state.withLock { $0.attempts.map(\.kind.description) } }
    var requestSeconds: [Double] { state.withLock { $0.attempts.map(\.seconds) } }
    var latencies: [Double] { state.withLock { $0.latencies } }
    var queueFailures: [DeliveryQueueOperation] { state.withLock { $0.queueFailures } }

    func attemptEnded(_ kind: AttemptOutcomeKind, requestSeconds: Double) {
        state.withLock { $0.attempts.append((kind, requestSeconds)) }
    }

    func delivered(secondsSinceCommit: Double) {
        state.withLock { $0.latencies.append(secondsSinceCommit) }
    }

    func queueFailed(_ operation: DeliveryQueueOperation) {
        state.withLock { $0.queueFailures.append(operation) }
    }
}
