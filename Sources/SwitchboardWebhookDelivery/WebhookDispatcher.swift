import Logging
import SwitchboardSystem
import SwitchboardWebhooks
import Synchronization

/// Delivers webhooks: `threads` threads of its own (never an event loop)
/// claim due deliveries from the queue, POST them signed, and record each
/// attempt's outcome, with at most `maxConcurrent` requests in flight in all
/// and `maxConcurrentPerEndpoint` per endpoint (docs/webhooks.md, "Delivery").
///
/// At least once: an attempt whose outcome is not recorded (the process died,
/// the database was down) is due again when its lease ends, and sent again.
///
/// While `gatewayBusy` says this node is saturated (its writer behind, or an
/// event loop with no idle time), each thread's claims and records take at
/// most `busySharePercent` of its time: deliveries lag rather than
/// acknowledgements, and catch up once the gateway has room again.
public final class WebhookDispatcher: Sendable {
    private let context: DispatchContext
    private let threads = Mutex<[NamedThread]>([])

    public init(
        queue: any DeliveryQueue, settings: WebhookDeliverySettings,
        metrics: any WebhookDeliveryMetrics = NoWebhookDeliveryMetrics(),
        logger: Logger = Logger(label: "switchboard.webhooks"),
        gatewayBusy: @escaping @Sendable () -> Bool = { false }
    ) {
        // The server's configuration checks the ranges; a timeout of 0 would end every request at once.
        precondition(
            settings.threads >= 1 && settings.timeoutSeconds >= 1 && settings.connectTimeoutSeconds >= 1
                && settings.pollIntervalMilliseconds >= 1 && (1...100).contains(settings.busySharePercent),
            "webhooks: threads, timeouts and the poll interval are at least 1, the busy share 1-100")
        context = DispatchContext(
            queue: queue, settings: settings, metrics: metrics, logger: logger, gatewayBusy: gatewayBusy)
    }

    deinit { stop() }

    /// Starts the threads; they claim at once. Throws when a thread's HTTP client cannot be set up (no epoll set).
    public func start() throws(WebhookHTTPError) {
        precondition(threads.withLock { $0.isEmpty } && !context.isStopping, "a dispatcher starts once")
        var workers: [DispatchWorker] = []
        do {
            for _ in 0..<context.settings.threads { workers.append(try DispatchWorker(context: context)) }
        } catch {
            for worker in workers {
                worker.queueCalls.stop()
                worker.wake.close()
            }
            throw error
        }
        context.wakeDescriptors.withLock { $0 = workers.map(\.wake) }
        let spawned = workers.enumerated().map { index, worker in
            NamedThread.spawn(name: "sb-webhooks-\(index)") { worker.run() }
        }
        threads.withLock { $0 = spawned }
    }

    /// Something was just committed that may have made deliveries due: every
    /// thread claims now instead of at its next poll. Cheap and non-blocking
    /// (an atomic increment and an eventfd write per thread): the server calls
    /// it after each commit that wrote events.
    public func wake() {
        context.wakeGeneration.add(1, ordering: .releasing)
        context.wakeAll()
    }

    /// Deliveries made on this node, taken without a claim: `make` is called
    /// with the room this dispatcher has for them now (`HandOffRoom`: so many
    /// in all, and of each endpoint its share less what it holds; none while
    /// full or stopping) and the lease to give them, and must write no more
    /// than that leased to it and return them with what else it returns.
    /// They are held and sent as claimed ones are; the first free thread
    /// takes them (`wake`'s claim is not needed for them). What `make` throws
    /// leaves the room as it was. While less than `minimum` (capped at an
    /// endpoint's share) is free of every endpoint, `make` gets none and
    /// `whenRoomFrees` is armed for that much; `minimum` 0 takes whatever
    /// room there is. `hasMore`: the maker has more to hand over than room
    /// (a backlog), and claims that would only refill busy endpoints leave
    /// the room it waits for to it (`DispatchBounds.claimsLeaveRoomToHandOff`).
    public func handOff<Result, Failure: Error>(
        atLeast minimum: Int = 1, hasMore: Bool = false,
        _ make: (_ room: HandOffRoom, _ leaseSeconds: Int) throws(Failure) -> (Result, [DueDelivery])
    ) throws(Failure) -> Result {
        let leaseSeconds = context.settings.leaseSeconds
        // The lease is counted from before the write, as a claim's is.
        let now = DispatchClock.milliseconds()
        let room =
            context.isStopping
            ? .none : context.bounds.withLock { $0.reserveHandOff(atLeast: minimum, hasMore: hasMore) } ?? .none
        let limit = room.limit
        let made: (Result, [DueDelivery])
        do {
            made = try make(room, leaseSeconds)
        } catch {
            if limit > 0 { context.bounds.withLock { $0.claimed(endpoints: [], reserved: limit) } }
            throw error
        }
        var handed = made.1
        if handed.count > limit {
            // A maker that breaks its contract (room for none included): the extra ones' leases run
            // out and they come back.
            context.logger.error("\(handed.count) deliveries were handed over for room for \(limit)")
            handed.removeLast(handed.count - limit)
        }
        guard limit > 0 else { return made.0 }
        context.bounds.withLock { $0.claimed(endpoints: handed.map(\.endpointID), reserved: limit) }
        guard !handed.isEmpty else { return made.0 }
        let leaseEndsAt = now + UInt64(leaseSeconds) * 1000
        context.inbox.withLock { $0 += handed.map { HeldDelivery(delivery: $0, leaseEndsAt: leaseEndsAt) } }
        context.wakeAll()
        return made.0
    }

    /// The endpoints that have less than `minimum` (capped at an endpoint's
    /// share) free to hold; nil while less is free in all
    /// (`DispatchBounds.endpointsShortOfRoom`).
    public func endpointsShortOfRoom(_ minimum: Int) -> [String]? {
        context.bounds.withLock { $0.endpointsShortOfRoom(minimum) }
    }

    /// Deliveries this dispatcher holds at most, in all and of one endpoint
    /// (`webhooks.hold_rounds` rounds of requests).
    public var maxHeld: Int { context.settings.maxHeld }
    public var maxHeldPerEndpoint: Int { context.settings.maxHeldPerEndpoint }

    /// `action` runs (on a dispatcher thread, briefly: it must not block)
    /// once the room a `handOff` found too little of is free, once per such
    /// `handOff`: a maker that waits for room sleeps until then instead of
    /// polling.
    public func whenRoomFrees(_ action: @escaping @Sendable () -> Void) {
        context.roomListener.withLock { $0 = action }
    }

    /// Stops claiming, lets the requests in flight end (within the request
    /// timeout), records their outcomes, and joins the threads. Deliveries
    /// held but not started are given back to the queue, due at once.
    public func stop() {
        guard !context.stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        context.wakeAll()
        let stopped = threads.withLock { threads in
            defer { threads.removeAll() }
            return threads
        }
        for thread in stopped { thread.join() }
        context.wakeDescriptors.withLock { descriptors in
            for descriptor in descriptors { descriptor.close() }
            descriptors.removeAll()
        }
    }
}
