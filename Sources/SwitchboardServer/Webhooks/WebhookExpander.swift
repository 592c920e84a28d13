import Logging
import SwitchboardMetrics
import SwitchboardReaders
import SwitchboardSystem
import SwitchboardWebhookDelivery
import Synchronization

/// Makes the webhook events of stored messages, on a thread of its own: it
/// takes the backlog the writer's batches leave (migration 21) and writes
/// each batch's events and deliveries (`ChatQueries.expandWebhookBacklog`),
/// so that the writer's transaction pays one backlog row per batch instead of
/// two rows and a built body per message. A commit that left work wakes it
/// (`wake`), so events follow their messages within milliseconds while the
/// writer keeps up; while commits keep coming, a pass starts at most every
/// pass interval (`AfterCommitPacing.passIntervalMilliseconds`), so each takes
/// the batches of that interval together rather than paying a pass's fixed
/// cost for each; while this node's writer is behind it yields
/// (`AfterCommitPacing`), and webhooks fall behind rather than
/// acknowledgements. Every node runs one, whether or not it dispatches; they
/// share the backlog without coordination (`SKIP LOCKED`). Where this node
/// dispatches, the deliveries a pass makes go to its dispatcher in memory,
/// leased at birth, as many as it has room for, and of each endpoint no more
/// than its share (migrations 23 and 29): no claim reads them back; the rest
/// are left due for any node's claim. A pass then reads no more messages than
/// every endpoint has room for (migration 28 splits a writer's batch to fit),
/// and while that is less than half an endpoint's share it waits for that
/// much, up to `roomWaitMilliseconds`, so that a backlog is handed over as it
/// drains instead of written due and claimed again.
final class WebhookExpander: Sendable {
    /// How long a pass waits for its dispatcher's room before it hands over
    /// what room there is and writes the rest due for any node's claim: an
    /// endpoint held full by slow requests must not hold back the others'
    /// events. A drain frees room within milliseconds.
    static let roomWaitMilliseconds: UInt64 = 50

    private let queries: Mutex<ChatQueries>
    private let logger: Logger
    private let metrics: GatewayMetrics
    private let pacing: AfterCommitPacing
    private let gatewayBusy: @Sendable () -> Bool
    private let deliveriesLeftDue: @Sendable () -> Void
    private let dispatcher: WebhookDispatcher?
    private let background = BackgroundThread(name: "sb-webhook-expand")
    private let wakeup: EventFD?

    /// `gatewayBusy`: whether this node is saturated (its writer behind, or an
    /// event loop with no idle time);
    /// `deliveriesLeftDue`: wakes the dispatchers' claims after a pass that left
    /// deliveries due; `dispatcher`: this node's, when it dispatches.
    init(
        databaseURL: String, pacing: AfterCommitPacing, metrics: GatewayMetrics, logger: Logger,
        dispatcher: WebhookDispatcher?, gatewayBusy: @escaping @Sendable () -> Bool,
        deliveriesLeftDue: @escaping @Sendable () -> Void
    ) {
        self.dispatcher = dispatcher
        // A pass lost in a crash is made again (its backlog rows come back with
        // it): no commit waits for the disk.
        queries = Mutex(ChatQueries(databaseURL: databaseURL, waitsForDisk: false, role: .webhookExpander))
        self.pacing = pacing
        self.metrics = metrics
        self.gatewayBusy = gatewayBusy
        self.deliveriesLeftDue = deliveriesLeftDue
        self.logger = logger
        do {
            wakeup = try EventFD()
        } catch {
            // Without one it polls every backlog interval: slower webhooks, nothing lost.
            logger.warning("webhook expander: no eventfd (\(error)); polling instead")
            wakeup = nil
        }
    }

    // Closed only here: the writer stops after the expander, and its last
    // commits still call `wake`, which must never write to a descriptor
    // number the process has reused.
    deinit { wakeup?.close() }

    func start() { background.start { [self] in run() } }

    func stop() { background.stop() }

    /// A batch committed here left work: the next pass runs now, unless the
    /// expander is yielding to a busy writer. Harmless once stopped.
    func wake() { wakeup?.signal() }

    /// One pass; nil when the dispatcher had no room and the pass waits for
    /// it (`roomWaitOver` false).
    /// `catchingUp`: the last pass left backlog, so the dispatcher's claims
    /// leave the room this pass waits for to it.
    private func expand(
        _ queries: ChatQueries, roomWaitOver: Bool, catchingUp: Bool
    ) throws(QueryError) -> WebhookBacklogPass? {
        guard let dispatcher else { return try queries.expandWebhookBacklog().pass }
        // Half an endpoint's share at least, of every endpoint, so that a pass's fixed cost is spread
        // over many deliveries while the dispatcher still holds the other half to send; after the
        // wait, whatever room there is in all, and the rest written due.
        let minimum = roomWaitOver ? 0 : max(1, dispatcher.maxHeldPerEndpoint / 2)
        return try dispatcher.handOff(atLeast: minimum, hasMore: catchingUp) { room, leaseSeconds throws(QueryError) in
            if room.limit == 0 && !roomWaitOver { return (nil, []) }
            // With room, no more messages than every endpoint has room for: each further delivery would
            // be written due and claimed. After the wait, the whole budget: an endpoint that stays
            // full (a slow one) must not make every pass a few messages long, while the other
            // endpoints' deliveries could be handed over, or claimed.
            let budget =
                roomWaitOver
                ? ChatQueries.webhookBacklogBudget : min(ChatQueries.webhookBacklogBudget, room.everyEndpoint)
            let made = try queries.expandWebhookBacklog(budget: budget, handoff: room, leaseSeconds: leaseSeconds)
            return (made.pass, made.handed)
        }
    }

    /// Whether a wait for room that ran out should end in a pass that takes
    /// its whole budget: only if some endpoint that takes message events has
    /// room for half its share. The 50-ms rule is for them (a slow, full
    /// endpoint must not hold their events back); with every such endpoint
    /// full, that pass would only write due deliveries that no claim here
    /// can take either until room frees, and that cost a claim each when it
    /// does. The backlog waits instead, a row per writer's batch, and is
    /// handed over as room frees. With no endpoint short of room the wait was
    /// for the room claims had reserved, not for a full endpoint: the pass
    /// that follows is an ordinary one, handing over what fits, rather than
    /// one that writes the rest of the budget due.
    private func someoneHasRoom(_ queries: ChatQueries) throws(QueryError) -> Bool {
        guard let dispatcher else { return true }
        guard let short = dispatcher.endpointsShortOfRoom(max(1, dispatcher.maxHeldPerEndpoint / 2)),
            !short.isEmpty
        else { return false }
        return try queries.messageWebhookEndpointExists(besides: short)
    }

    private func run() {
        var failing = false
        // Since when passes found the dispatcher full (monotonic milliseconds).
        var noRoomSince: UInt64?
        var catchingUp = false
        while !background.isStopped {
            var wait = pacing.idleMilliseconds
            var rest = 0
            var yielding = false
            do throws(QueryError) {
                let started = MonotonicClock.nanoseconds()
                let now = started / 1_000_000
                let waitRanOut = noRoomSince.map { now - $0 >= Self.roomWaitMilliseconds } ?? false
                let made = try queries.withLock { queries throws(QueryError) in
                    var roomWaitOver = false
                    if waitRanOut { roomWaitOver = try someoneHasRoom(queries) }
                    return try expand(queries, roomWaitOver: roomWaitOver, catchingUp: catchingUp)
                }
                guard let pass = made else {
                    // Woken when room frees (`whenRoomFrees`), or by a commit; at the latest when the wait is
                    // over. A wait that ran out with nobody to take the room starts again.
                    let since = waitRanOut ? now : noRoomSince ?? now
                    noRoomSince = since
                    background.pause(
                        milliseconds: Int(
                            max(1, Self.roomWaitMilliseconds - min(now - since, Self.roomWaitMilliseconds))),
                        wakeup: wakeup)
                    continue
                }
                noRoomSince = nil
                let took = Int((MonotonicClock.nanoseconds() - started) / 1000)
                if pass.events > 0 { metrics.webhookEventsWritten.increment(by: pass.events) }
                if pass.due > 0 { deliveriesLeftDue() }
                catchingUp = pass.more
                metrics.webhookCatchingUp.set(pass.more ? 1 : 0)
                if failing { logger.info("webhook events are made again") }
                failing = false
                let busy = gatewayBusy()
                wait = pacing.wait(more: pass.more, passMicroseconds: took, gatewayBusy: busy)
                rest = pacing.rest(found: pass.ranges > 0, more: pass.more, passMicroseconds: took)
                yielding = pass.more && busy
            } catch {
                if !failing { logger.warning("making webhook events failed (retrying every second): \(error)") }
                failing = true
                wait = max(wait, 1000)
            }
            // Commits that come meanwhile wait for the next pass, which takes them together.
            if rest > 0 && !background.pause(milliseconds: rest) { break }
            // Yielding, it sleeps its share out: each of the writer's commits would otherwise wake it.
            background.pause(milliseconds: wait - rest, wakeup: yielding || failing ? nil : wakeup)
        }
    }
}
