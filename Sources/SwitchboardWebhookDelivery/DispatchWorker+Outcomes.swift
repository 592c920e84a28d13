import SwitchboardSystem
import SwitchboardWebhooks

/// An outcome waiting to be recorded.
struct UnrecordedOutcome: Sendable {
    var outcome: DeliveryOutcome
    /// Its delivery's lease end (monotonic milliseconds): recorded later, it
    /// could overwrite a newer claimer's attempt.
    var leaseEndsAt: UInt64
    /// When its attempt ended (monotonic milliseconds), for `RecordPacing`.
    var endedAt: UInt64
}

/// A claim sent to the queue's thread, with what the worker knew when it
/// reserved the room.
struct PendingClaim: Sendable {
    var limit: Int
    var busy: Set<String>
    var finishedGeneration: Int
    var wakeGeneration: Int
    /// Monotonic milliseconds before the claim: the leases count from it.
    var startedAt: UInt64
}

/// What a queue call answered, for the worker's thread to take.
enum QueueAnswer: Sendable {
    case claimed(Result<[DueDelivery], any Error>, tookNanoseconds: UInt64)
    /// nil: every outcome of the record was taken.
    case recorded(failure: (any Error)?, tookNanoseconds: UInt64)
}

/// An attempt's end: metrics, the endpoint's slot, and the outcome recorded,
/// or kept to be recorded once the queue answers again.
extension DispatchWorker {
    func complete(_ held: HeldDelivery, result: AttemptResult, durationMilliseconds: Int) {
        let delivery = held.delivery
        let finishedAt = DispatchClock.epochSeconds()
        let outcome = DeliveryOutcome(
            of: delivery, result: result, durationMilliseconds: durationMilliseconds, finishedAt: finishedAt,
            schedule: settings.retrySchedule)
        context.metrics.attemptEnded(AttemptOutcomeKind(result), requestSeconds: Double(durationMilliseconds) / 1000)
        if outcome.succeeded {
            context.metrics.delivered(secondsSinceCommit: max(0, finishedAt - delivery.eventCreatedAt))
        } else {
            context.logger.debug(
                "webhook attempt failed",
                metadata: [
                    "delivery": "\(delivery.id)", "endpoint": "\(delivery.endpointID)",
                    "attempt": "\(delivery.attempt + 1)", "error": "\(outcome.error ?? "")",
                ])
        }
        // A delivery held by another thread may be waiting for this slot:
        // `startWaiting` passes it on once this thread has taken what it can.
        context.finished(endpoints: [delivery.endpointID], wasRunning: true)
        slotFreed = true
        // Recorded with whatever else ends soon (`RecordPacing`).
        unrecorded.append(
            UnrecordedOutcome(outcome: outcome, leaseEndsAt: held.leaseEndsAt, endedAt: DispatchClock.milliseconds()))
    }

    /// Whether the outcomes waiting to be recorded go now (`RecordPacing`):
    /// never while a record is in flight (the next waits for its answer).
    func recordIsDue(now: UInt64) -> Bool {
        guard recording == 0, let oldest = unrecorded.first else { return false }
        return RecordPacing.isDue(
            waiting: unrecorded.count, oldestEndedAt: oldest.endedAt, now: now,
            idle: running.isEmpty && waiting.isEmpty)
    }

    /// Sends a record of what the queue has not taken yet, at most
    /// `recordBatch` of it (the rest goes after its answer), unless a record
    /// is in flight or the queue is being left alone after a failure. An
    /// outcome whose lease has run out is dropped: the delivery is due again
    /// and will be sent again (at least once), and recording it late could
    /// overwrite a newer claimer's attempt.
    func retryUnrecorded(now: UInt64) {
        guard recording == 0, !unrecorded.isEmpty, !backoff.isWaiting(at: now) else { return }
        unrecorded.removeAll { entry in
            guard entry.leaseEndsAt <= now else { return false }
            context.logger.warning(
                "an attempt's outcome was not recorded before its lease ended: the delivery will be sent again",
                metadata: ["delivery": "\(entry.outcome.deliveryID)"])
            return true
        }
        guard !unrecorded.isEmpty else { return }
        let batch = unrecorded.prefix(Self.recordBatch).map(\.outcome)
        recording = batch.count
        let queue = context.queue
        callQueue {
            let started = MonotonicClock.nanoseconds()
            var failure: (any Error)?
            do { try queue.record(batch) } catch { failure = error }
            return .recorded(failure: failure, tookNanoseconds: MonotonicClock.nanoseconds() - started)
        }
    }

    /// The record in flight ended: its outcomes leave `unrecorded`, or stay
    /// there for the next try after the backoff.
    func recordAnswered(failure: (any Error)?, tookNanoseconds: UInt64, now: UInt64) {
        let count = recording
        recording = 0
        paceAfterQueueCall(tookNanoseconds: tookNanoseconds)
        if let failure {
            queueFailed(.record, failure, now: now)
            return
        }
        unrecorded.removeFirst(count)
        queueSucceeded()
        // The rest of a long list goes at once rather than after the pacing's wait.
        if unrecorded.count >= RecordPacing.atOnce { retryUnrecorded(now: now) }
    }

    /// Outcomes per `record` call at most: one statement's arrays stay small.
    static let recordBatch = 256

    /// On the way out: one last try for the outcomes, however the queue is doing.
    func recordLeftoversBeforeExit() {
        let now = DispatchClock.milliseconds()
        let left = unrecorded.filter { $0.leaseEndsAt > now }.map(\.outcome)
        unrecorded.removeAll()
        guard !left.isEmpty else { return }
        do {
            try context.queue.record(left)
        } catch {
            context.metrics.queueFailed(.record)
            context.logger.warning(
                "stopping: \(left.count) attempts' outcomes could not be recorded: their deliveries will be sent again",
                metadata: ["error": "\(error)"])
        }
    }

    /// Lets go of held deliveries that were never started, and gives them
    /// back to the queue so that their attempt is not counted. Only those
    /// whose lease lasts long enough for the call to land within it (the
    /// others' leases end soon: they come back then, the attempt counted), and
    /// not while the queue is being left alone after a failure; a release the
    /// queue refuses is not tried again (the leases end).
    func release(_ held: [HeldDelivery], now: UInt64) {
        guard !held.isEmpty else { return }
        context.finished(endpoints: held.map(\.delivery.endpointID), wasRunning: false)
        let margin = UInt64(WebhookDeliverySettings.recordMarginSeconds) * 1000
        let givenBack = held.filter { $0.leaseEndsAt > now + margin }.map(\.delivery)
        guard !givenBack.isEmpty, context.isStopping || !backoff.isWaiting(at: now) else { return }
        do {
            try context.queue.release(givenBack)
        } catch {
            if context.isStopping {
                context.metrics.queueFailed(.release)
                context.logger.warning(
                    "stopping: \(givenBack.count) deliveries could not be given back: they are due again when their leases end",
                    metadata: ["error": "\(error)"])
            } else {
                queueFailed(.release, error, now: now)
            }
            return
        }
        if !context.isStopping { queueSucceeded() }
    }

    /// While the gateway is busy, a queue call that took t keeps the next
    /// claim back by t × (100 − share) / share: claims and records then take
    /// at most `busySharePercent` of this thread's time (records are not held
    /// back: they end leases, and there are no more of them than deliveries
    /// held).
    func paceAfterQueueCall(tookNanoseconds took: UInt64) {
        let share = UInt64(settings.busySharePercent)
        guard share < 100, context.gatewayBusy() else { return }
        let until = DispatchClock.milliseconds() + took * (100 - share) / share / 1_000_000
        yieldUntil = max(yieldUntil, until)
    }

    func queueFailed(_ operation: DeliveryQueueOperation, _ error: any Error, now: UInt64) {
        backoff.failed(at: now)
        context.metrics.queueFailed(operation)
        // Once when the trouble starts, then at most every ten seconds (the longest backoff).
        if backoff.failures == 1 || backoff.delayMilliseconds == QueueBackoff.maximumDelayMilliseconds {
            context.logger.warning(
                "the webhook delivery queue failed",
                metadata: [
                    "operation": "\(operation.rawValue)", "failures": "\(backoff.failures)",
                    "retry_ms": "\(backoff.delayMilliseconds)", "error": "\(error)",
                ])
        }
    }

    func queueSucceeded() {
        if backoff.failures > 0 {
            context.logger.info("the delivery queue answers again after \(backoff.failures) failures")
        }
        backoff.succeeded()
    }
}
