import Synchronization

/// Decides whether a webhook may target `url`: asked when an endpoint is
/// created and when its URL changes, on a reader thread (it may resolve the
/// host and block; never on an event loop), and only while
/// `webhooks.allow_private_targets` is false. Nil: allowed; otherwise why
/// not, which the API answers as 400 `private_target`.
typealias WebhookTargetCheck = @Sendable (_ url: String) -> String?

/// Where the webhook API and the writer meet what delivery builds: the
/// address policy (`setTargetCheck`) and the dispatcher's wake-up
/// (`setWakeup`). Both are set once at start-up, before the loops run.
/// Unset, every target passes and nobody is woken (a dispatcher polls).
final class WebhookHooks: Sendable {
    /// `webhooks.allow_private_targets`: the target check is skipped.
    let allowPrivateTargets: Bool
    /// `webhooks.disable_after_hours`, for the dispatcher's `PostgresDeliveryQueue`.
    let disableAfterHours: Int
    private let targetCheck = Mutex<WebhookTargetCheck?>(nil)
    private let wakeup = Mutex<(@Sendable () -> Void)?>(nil)

    init(allowPrivateTargets: Bool, disableAfterHours: Int) {
        self.allowPrivateTargets = allowPrivateTargets
        self.disableAfterHours = disableAfterHours
    }

    convenience init(_ configuration: Configuration) {
        self.init(
            allowPrivateTargets: configuration.webhooksAllowPrivateTargets,
            disableAfterHours: configuration.webhooksDisableAfterHours)
    }

    func setTargetCheck(_ check: @escaping WebhookTargetCheck) {
        targetCheck.withLock { $0 = check }
    }

    /// `wake` runs on the thread that committed the work (a writer shard's,
    /// a reader's): it must only signal the dispatcher and return.
    func setWakeup(_ wake: @escaping @Sendable () -> Void) {
        wakeup.withLock { $0 = wake }
    }

    /// Why `url` may not be a target; nil when it may. On a reader thread.
    func refusal(of url: String) -> String? {
        if allowPrivateTargets { return nil }
        return targetCheck.withLock { $0 }?(url)
    }

    /// Deliveries fell due in a transaction that has committed here: a
    /// batch's events, a retry, a test, an endpoint enabled again. (All but
    /// the batches also notify `ChatQueries.webhookChannel` at commit, which
    /// reaches every node, as do session events from any path.)
    func outboxHasWork() {
        wakeup.withLock { $0 }?()
    }
}
