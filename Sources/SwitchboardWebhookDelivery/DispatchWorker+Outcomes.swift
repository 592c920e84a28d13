import SwitchboardSystem
import SwitchboardWebhooks

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
        if unrecorded.isEmpty { oldestUnrecordedAt = DispatchClock.milliseconds() }
        unrecorded.append((outcome, held.leaseEndsAt))
    }

    /// Whether the outcomes waiting to be recorded go now (`RecordPacing`).
    func recordIsDue(now: UInt64) -> Bool {
        RecordPacing.isDue(
            waiting: unrecorded.count, oldestEndedAt: oldestUnrecordedAt, now: now,
            idle: running.isEmpty && waiting.isEmpty)
    }

    /// Records what the queue has not taken yet, in batches of at most
    /// `recordBatch`, unless it is being left alone after a failure. An
    /// outcome whose lease has run out is dropped: the delivery is due again
    /// and will be sent again (at least once), and recording it late could
    /// overwrite a newer claimer's attempt.
    func retryUnrecorded(now: UInt64) {
        guard !unrecorded.isEmpty, !backoff.isWaiting(at: now) else { return }
        unrecorded.removeAll { entry in
            guard entry.leaseEndsAt <= now else { return false }
            context.logger.warning(
                "an attempt's outcome was not recorded before its lease ended: the delivery will be sent again",
                metadata: ["delivery": "\(entry.outcome.deliveryID)"])
            return true
        }
        while !unrecorded.isEmpty {
            let batch = unrecorded.prefix(Self.recordBatch)
            let started = MonotonicClock.nanoseconds()
            defer { paceAfterQueueCall(startedAt: started) }
            do {
                try context.queue.record(batch.map(\.outcome))
            } catch {
                queueFailed(.record, error, now: now)
                return
            }
            unrecorded.removeFirst(batch.count)
            queueSucceeded()
        }
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
    func paceAfterQueueCall(startedAt: UInt64) {
        let share = UInt64(settings.busySharePercent)
        guard share < 100, context.gatewayBusy() else { return }
        let took = MonotonicClock.nanoseconds() - startedAt
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
