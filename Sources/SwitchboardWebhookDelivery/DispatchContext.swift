import Logging
import SwitchboardSystem
import SwitchboardWebhooks
import Synchronization

/// What the dispatcher's threads share: the queue, the settings, the bounds,
/// the wake-up counter and the stop flag, and each thread's eventfd (to wake
/// one another when a slot frees).
final class DispatchContext: Sendable {
    let queue: any DeliveryQueue
    let settings: WebhookDeliverySettings
    let metrics: any WebhookDeliveryMetrics
    let logger: Logger
    /// Whether this node is saturated (writer behind, or an event loop with no
    /// idle time): claims then take at most
    /// `settings.busySharePercent` of a thread's time.
    let gatewayBusy: @Sendable () -> Bool
    let bounds: Mutex<DispatchBounds>
    /// Counts `wake()` calls: a thread that sees it change claims at once.
    let wakeGeneration = Atomic<Int>(0)
    let stopping = Atomic<Bool>(false)
    /// The threads' eventfds; empty once they are closed.
    let wakeDescriptors = Mutex<[EventFD]>([])
    /// Deliveries handed over (`WebhookDispatcher.handOff`), held in the
    /// bounds already, until a thread with room takes them.
    let inbox = Mutex<[HeldDelivery]>([])
    /// Told when room frees after a hand-off found none
    /// (`WebhookDispatcher.whenRoomFrees`).
    let roomListener = Mutex<(@Sendable () -> Void)?>(nil)

    init(
        queue: any DeliveryQueue, settings: WebhookDeliverySettings, metrics: any WebhookDeliveryMetrics,
        logger: Logger, gatewayBusy: @escaping @Sendable () -> Bool
    ) {
        self.queue = queue
        self.gatewayBusy = gatewayBusy
        self.settings = settings
        self.metrics = metrics
        self.logger = logger
        bounds = Mutex(
            DispatchBounds(
                maxConcurrent: settings.maxConcurrent, maxPerEndpoint: settings.maxConcurrentPerEndpoint,
                maxHeld: settings.maxHeld, maxHeldPerEndpoint: settings.maxHeldPerEndpoint))
    }

    var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// A held delivery is done (`wasRunning`: its attempt ended; otherwise it
    /// was let go unsent); the listener hears of the room if a hand-off found
    /// none.
    func finished(endpoints: [String], wasRunning: Bool) {
        let roomWanted = bounds.withLock { bounds in
            for endpoint in endpoints { bounds.finished(endpoint: endpoint, wasRunning: wasRunning) }
            return bounds.takeRoomWanted()
        }
        if roomWanted, let listener = roomListener.withLock({ $0 }) { listener() }
    }

    /// Called by a thread whose requests ended once it has started what it
    /// could of its own: if a held delivery could still start (another
    /// thread's, or one handed over), the threads are woken to start it.
    /// Waking them on every ended request instead cost an eventfd write per
    /// thread and a wake-up of the other thread per delivery (8% of the
    /// gateway's samples in a capacity drain), mostly for nothing: the thread
    /// whose request ended fills the slot itself whenever it holds more of
    /// that endpoint's deliveries.
    func passOnFreedSlots() {
        if bounds.withLock({ $0.hasStartableWaiting }) { wakeAll() }
    }

    /// Wakes every thread from its wait (their eventfds are level-triggered in poll).
    func wakeAll() {
        wakeDescriptors.withLock { descriptors in
            for descriptor in descriptors { descriptor.signal() }
        }
    }
}

/// Clocks as the dispatcher uses them: monotonic milliseconds for leases and
/// waits, wall-clock seconds for what is recorded (next attempts, latency).
enum DispatchClock {
    static func milliseconds() -> UInt64 { MonotonicClock.nanoseconds() / 1_000_000 }
    static func epochSeconds() -> Double { Double(UnixClock.nowMicroseconds()) / 1_000_000 }
}
