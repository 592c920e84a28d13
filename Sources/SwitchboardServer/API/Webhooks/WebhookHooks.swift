import Synchronization

/// Decides whether a webhook may target `url`: asked when an endpoint is
/// created and when its URL changes, on a reader thread (it may resolve the
/// host and block; never on an event loop), and only while
/// `webhooks.allow_private_targets` is false. Nil: allowed; otherwise why
/// not, which the API answers as 400 `private_target`.
typealias WebhookTargetCheck = @Sendable (_ url: String) -> String?

/// Where the webhook API and the writer meet what delivery builds: the
/// address policy (`setTargetCheck`), the dispatcher's wake-up (`setWakeup`)
/// and the expander's (`setBacklogWakeup`). All are set once at start-up,
/// before the loops run. Unset, every target passes and nobody is woken (a
/// dispatcher and an expander poll).
final class WebhookHooks: Sendable {
    /// `webhooks.allow_private_targets`: the target check is skipped.
    let allowPrivateTargets: Bool
    /// `webhooks.disable_after_hours`, for the dispatcher's `PostgresDeliveryQueue`.
    let disableAfterHours: Int
    private let targetCheck = Mutex<WebhookTargetCheck?>(nil)
    private let wakeup = Mutex<(@Sendable () -> Void)?>(nil)
    private let backlogWakeup = Mutex<(@Sendable () -> Void)?>(nil)

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

    /// `wake` runs on a writer shard's thread: it must only signal the expander and return.
    func setBacklogWakeup(_ wake: @escaping @Sendable () -> Void) {
        backlogWakeup.withLock { $0 = wake }
    }

    /// Why `url` may not be a target; nil when it may. On a reader thread.
    func refusal(of url: String) -> String? {
        if allowPrivateTargets { return nil }
        return targetCheck.withLock { $0 }?(url)
    }

    /// Deliveries fell due in a transaction that has committed here: the
    /// expander's events, a retry, a test, an endpoint enabled again. (Each
    /// also notifies `ChatQueries.webhookChannel` at commit, which reaches
    /// every node, as do session events from any path.)
    func outboxHasWork() {
        wakeup.withLock { $0 }?()
    }

    /// A batch committed here left messages in the webhook backlog (migration 21).
    func backlogHasWork() {
        backlogWakeup.withLock { $0 }?()
    }
}
