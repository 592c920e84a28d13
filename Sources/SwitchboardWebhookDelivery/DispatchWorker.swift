import SwitchboardSystem
import SwitchboardWebhooks
import Synchronization

/// A delivery this thread claimed, and when its lease ends (monotonic
/// milliseconds, counted from before the claim: earlier than the queue's own).
struct HeldDelivery: Sendable {
    var delivery: DueDelivery
    var leaseEndsAt: UInt64
}

/// One dispatcher thread: claims due deliveries, sends them through its own
/// HTTP client, records how each attempt ended, and sleeps in between on its
/// eventfd and its requests' sockets (never a busy wait). Claims and records
/// run on its `QueueCallThread`, one at a time, and come back as
/// `QueueAnswer`s; the requests go on meanwhile.
///
/// @unchecked Sendable: it is made on the thread that starts the dispatcher
/// and handed to its own thread, the only one that uses it from then on.
final class DispatchWorker: @unchecked Sendable {
    let context: DispatchContext
    let wake: EventFD
    let client: WebhookHTTPClient
    var settings: WebhookDeliverySettings { context.settings }

    /// Claimed or handed over, waiting for a slot of their endpoint, in that order.
    var waiting = WaitingDeliveries()
    /// In flight, by request tag.
    var running: [Int: HeldDelivery] = [:]
    /// Outcomes the queue did not take yet, with their deliveries' lease ends
    /// and when their attempts ended (monotonic milliseconds), oldest first.
    var unrecorded: [UnrecordedOutcome] = []
    /// How many of `unrecorded`, from its front, a record in flight carries.
    var recording = 0
    /// The claim in flight, if any.
    var pendingClaim: PendingClaim?
    let queueCalls: QueueCallThread
    /// What the queue calls answered, for this thread to take.
    let answers = Mutex<[QueueAnswer]>([])
    var backoff = QueueBackoff()
    private var nextTag = 0
    /// A request of this thread ended since `startWaiting` last looked: its
    /// slot may be another thread's to fill.
    var slotFreed = false
    /// Each endpoint's URL checked and secrets made ready to sign, while they stay the same.
    private var preparations = EndpointPreparations()

    // When to claim next.
    private var nextPollAt: UInt64 = 0
    private var seenWakeGeneration = -1
    /// The last claim was full, or skipped busy endpoints: more may be due as
    /// soon as room frees.
    private var moreMayBeDue = false
    /// The endpoints skipped by the last claim when it found nothing else:
    /// every delivery due was theirs, and the claim read all of them to find
    /// that out (the due index cannot skip an endpoint). While all of them
    /// still hold their share when the next claim is reserved, and until the
    /// poll comes, another claim would read them all again for nothing,
    /// after every request that ends and every commit that woke the
    /// dispatcher: over a capacity drain with one endpoint, 618 to 945 such
    /// claims a run (200,000-540,000 rows read, 40-270 ms each; 54 s of the
    /// dispatcher's database time in an 86-s drain).
    private var foundOnlyBusy: Set<String>?
    private var finishedGenerationAtClaim = 0
    /// No claim before this (monotonic milliseconds): the thread is yielding
    /// to a busy writer (`paceAfterQueueCall`).
    var yieldUntil: UInt64 = 0

    init(context: DispatchContext) throws(WebhookHTTPError) {
        self.context = context
        client = try WebhookHTTPClient(settings: context.settings.clientSettings)
        do { wake = try EventFD() } catch { throw .setup("eventfd: \(error)") }
        queueCalls = QueueCallThread(name: "sb-webhooks-db")
    }

    func run() {
        while true {
            let now = DispatchClock.milliseconds()
            takeAnswers(now: now)
            if context.isStopping {
                retryUnrecorded(now: now)
                adoptHandedOver()
                releaseWaiting(now: now)
                if running.isEmpty && pendingClaim == nil && recording == 0 { break }
            } else {
                adoptHandedOver()
                startWaiting(now: now)
                if recordIsDue(now: now) { retryUnrecorded(now: now) }
                if shouldClaim(now: now) { claim(now: now) }
            }
            handle(client.poll(timeoutMilliseconds: sleepMilliseconds(now: now), wake: wake))
        }
        queueCalls.stop()
        recordLeftoversBeforeExit()
    }

    /// Takes what the queue calls answered since the last turn.
    private func takeAnswers(now: UInt64) {
        let taken = answers.withLock { answers in
            defer { answers.removeAll(keepingCapacity: true) }
            return answers
        }
        for answer in taken {
            switch answer {
            case .claimed(let result, let took): claimAnswered(result, tookNanoseconds: took, now: now)
            case .recorded(let failure, let took): recordAnswered(failure: failure, tookNanoseconds: took, now: now)
            }
        }
    }

    /// Runs `call` on the queue's thread and hands its answer back to this one.
    /// The queue's thread touches only `answers` (a lock) and `wake`.
    func callQueue(_ call: @escaping @Sendable () -> QueueAnswer) {
        queueCalls.post { [self] in
            let answer = call()
            answers.withLock { $0.append(answer) }
            wake.signal()
        }
    }

    private func handle(_ ended: [(tag: Int, response: WebhookHTTPResponse)]) {
        for (tag, response) in ended {
            guard let held = running.removeValue(forKey: tag) else { continue }
            complete(held, result: response.result, durationMilliseconds: response.durationMilliseconds)
        }
    }

    private var room: Int { settings.perThreadCapacity - waiting.count - running.count }

    private func shouldClaim(now: UInt64) -> Bool {
        guard pendingClaim == nil, room > 0, !backoff.isWaiting(at: now), now >= yieldUntil else { return false }
        if context.wakeGeneration.load(ordering: .acquiring) != seenWakeGeneration || now >= nextPollAt { return true }
        // More may be due: claim once a request has ended and this thread
        // holds no more than half an endpoint's share unstarted, so that a
        // busy endpoint is claimed for in batches rather than one query per
        // request, and the next batch comes while the last is still being
        // sent; not while a hand-over with a backlog waits for the room such
        // a claim would take.
        guard moreMayBeDue, waiting.count <= settings.maxHeldPerEndpoint / 2 else { return false }
        return context.bounds.withLock {
            $0.finishedGeneration != finishedGenerationAtClaim && !$0.claimsLeaveRoomToHandOff
        }
    }

    /// Until the next claim is due (not before the backoff ends), or until
    /// unrecorded outcomes may be tried again; the poll interval at most, so
    /// that waiting deliveries' leases are looked at that often. Requests
    /// ending and `wake()` cut the sleep short.
    private func sleepMilliseconds(now: UInt64) -> Int {
        let interval = UInt64(settings.pollIntervalMilliseconds)
        if context.isStopping { return 100 }
        // A claim in flight wakes the thread when it answers.
        var until = room > 0 && pendingClaim == nil ? max(nextPollAt, backoff.resumeAt, yieldUntil) : now + interval
        if recording == 0, let oldest = unrecorded.first {
            let recordAt = recordIsDue(now: now) ? now : RecordPacing.dueAt(oldestEndedAt: oldest.endedAt)
            until = min(until, max(backoff.resumeAt, recordAt))
        }
        return Int(min(until > now ? until - now : 0, interval))
    }

    private func claim(now: UInt64) {
        let wakeGeneration = context.wakeGeneration.load(ordering: .acquiring)
        let pollDue = now >= nextPollAt
        var skippedAt: Int?
        let reservation = context.bounds.withLock { bounds -> (Int, Set<String>, Int)? in
            guard let (limit, busy) = bounds.reserveClaim(wanted: room) else { return nil }
            // Every endpoint the last claim skipped still holds its share (the other threads
            // refill it as each request ends): the claim would read past all their deliveries
            // again. New work for another endpoint waits for the poll while they stay busy.
            if !pollDue, let skipped = foundOnlyBusy, busy.isSuperset(of: skipped) {
                bounds.claimed(endpoints: [], reserved: limit)
                skippedAt = bounds.finishedGeneration
                return nil
            }
            return (limit, busy, bounds.finishedGeneration)
        }
        if let skippedAt {
            // Seen: the thread sleeps until a request ends, a new wake, or the poll.
            seenWakeGeneration = wakeGeneration
            finishedGenerationAtClaim = skippedAt
            return
        }
        nextPollAt = now + UInt64(settings.pollIntervalMilliseconds)
        // No room left in all: the other threads hold it; try again at the next poll.
        guard let (limit, busy, finishedGeneration) = reservation else { return }
        pendingClaim = PendingClaim(
            limit: limit, busy: busy, finishedGeneration: finishedGeneration, wakeGeneration: wakeGeneration,
            startedAt: now)
        let queue = context.queue
        let leaseSeconds = settings.leaseSeconds
        callQueue {
            let started = MonotonicClock.nanoseconds()
            let result = Result { try queue.claim(limit: limit, leaseSeconds: leaseSeconds, skipping: busy) }
            return .claimed(result, tookNanoseconds: MonotonicClock.nanoseconds() - started)
        }
    }

    /// The claim's deliveries join those waiting for a slot; the lease is
    /// counted from before the claim was sent.
    private func claimAnswered(_ result: Result<[DueDelivery], any Error>, tookNanoseconds: UInt64, now: UInt64) {
        guard let pending = pendingClaim else { return }
        pendingClaim = nil
        defer { paceAfterQueueCall(tookNanoseconds: tookNanoseconds) }
        var claimed: [DueDelivery]
        switch result {
        case .success(let deliveries): claimed = deliveries
        case .failure(let error):
            context.bounds.withLock { $0.claimed(endpoints: [], reserved: pending.limit) }
            queueFailed(.claim, error, now: now)
            return
        }
        if claimed.count > pending.limit {
            // A queue that breaks its contract: the extra ones' leases run out and they come back.
            context.logger.error("the delivery queue gave \(claimed.count) deliveries for a claim of \(pending.limit)")
            claimed.removeLast(claimed.count - pending.limit)
        }
        context.bounds.withLock { $0.claimed(endpoints: claimed.map(\.endpointID), reserved: pending.limit) }
        queueSucceeded()
        let leaseEndsAt = pending.startedAt + UInt64(settings.leaseSeconds) * 1000
        waiting.append(contentsOf: claimed.map { HeldDelivery(delivery: $0, leaseEndsAt: leaseEndsAt) })
        seenWakeGeneration = pending.wakeGeneration
        moreMayBeDue = claimed.count == pending.limit || !pending.busy.isEmpty
        // A claim that skipped nothing says nothing about other endpoints' work: the memory stays.
        if !pending.busy.isEmpty { foundOnlyBusy = claimed.isEmpty ? pending.busy : nil }
        finishedGenerationAtClaim = pending.finishedGeneration
    }

    /// Starts what its endpoint has a slot for; gives back what could no
    /// longer finish within its lease (due again at once, unattempted). Then,
    /// if a request of this thread ended, wakes the others should a slot it
    /// freed still be free for a delivery they hold.
    private func startWaiting(now: UInt64) {
        startOwnWaiting(now: now)
        if slotFreed {
            slotFreed = false
            context.passOnFreedSlots()
        }
    }

    /// Starts, in order, what its endpoint has a slot for (`WaitingDeliveries`
    /// says why a pass is cheap); gives back what could no longer finish
    /// within its lease.
    private func startOwnWaiting(now: UInt64) {
        let latestStart = UInt64(settings.timeoutSeconds + WebhookDeliverySettings.recordMarginSeconds) * 1000
        let tooLate = waiting.pass(tooLateBefore: now + latestStart) { held in
            // Each ask takes the bounds' lock: the pass asks once per endpoint.
            guard context.bounds.withLock({ $0.tryStart(endpoint: held.delivery.endpointID) }) else { return .noSlot }
            send(held)
            return .started
        }
        for held in tooLate {
            context.logger.debug(
                "a delivery waited too long for a slot of its endpoint: given back unattempted",
                metadata: ["delivery": "\(held.delivery.id)", "endpoint": "\(held.delivery.endpointID)"])
        }
        release(tooLate, now: now)
    }

    private func send(_ held: HeldDelivery) {
        let delivery = held.delivery
        let headers: [WebhookHeader]
        do {
            let keys = try preparations.signingKeys(for: delivery).get()
            headers = try WebhookRequestHeaders.of(delivery, timestamp: UnixClock.nowSeconds(), keys: keys)
        } catch {
            // Both errors are phrased without the secret.
            complete(held, result: .noAnswer(.invalidEndpoint, message: "\(error)"), durationMilliseconds: 0)
            return
        }
        nextTag &+= 1
        running[nextTag] = held
        client.start(WebhookHTTPRequest(url: delivery.url, headers: headers, body: delivery.body), tag: nextTag)
    }

    /// Takes what was handed over, as much as this thread has room for
    /// (together the threads have room for all of it: the bounds held it).
    private func adoptHandedOver() {
        let room = self.room
        guard room > 0 || context.isStopping else { return }
        let taken = context.inbox.withLock { inbox -> [HeldDelivery] in
            let count = context.isStopping ? inbox.count : min(room, inbox.count)
            defer { inbox.removeFirst(count) }
            return Array(inbox.prefix(count))
        }
        waiting.append(contentsOf: taken)
    }

    /// Stopping: what has not started is given back, for this node's next
    /// start or another node to take at once.
    private func releaseWaiting(now: UInt64) {
        release(waiting.removeAll(), now: now)
    }
}
