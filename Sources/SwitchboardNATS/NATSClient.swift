import SwitchboardSystem
import Synchronization

/// A NATS core client: publish, subscribe, and ride out the server going
/// away. Each client owns one thread (`NamedThread`), which does all its I/O
/// and blocks only in poll() on its socket and its wake-up eventfd; any
/// thread may publish or subscribe, without ever blocking on the network.
///
/// Delivery is NATS core's: at most once. Publications queue in memory (up
/// to `maxBufferedBytes`) while the client is disconnected and go out in
/// order after the reconnect, behind the subscriptions, which every new
/// connection re-sends. What the kernel had accepted when a connection broke
/// is lost, as with any NATS client.
///
/// Callbacks run on the client's thread, in the order events arrive: keep
/// them short (hand the message to another queue), since the socket is not
/// read while they run. They may publish and subscribe; `stop` from a
/// callback does not wait for the thread (it ends when the callback returns).
public final class NATSClient: Sendable {
    private let mailbox: NATSMailbox
    private let loop: NATSConnectionLoop
    private let threadName: String
    private let thread = Mutex<NamedThread?>(nil)

    /// `echo` false: the server does not deliver this client's own
    /// publications to its subscriptions.
    public convenience init(
        address: NATSAddress, name: String, maxBufferedBytes: Int = 64 << 20, echo: Bool = true,
        onMessage: @escaping @Sendable (_ subject: String, _ payload: [UInt8]) -> Void,
        onState: @escaping @Sendable (NATSConnectionState) -> Void
    ) {
        self.init(
            address: address, name: name, maxBufferedBytes: maxBufferedBytes, echo: echo, timings: .standard,
            onMessage: onMessage, onState: onState)
    }

    init(
        address: NATSAddress, name: String, maxBufferedBytes: Int, echo: Bool = true, timings: NATSTimings,
        onMessage: @escaping @Sendable (_ subject: String, _ payload: [UInt8]) -> Void,
        onState: @escaping @Sendable (NATSConnectionState) -> Void
    ) {
        mailbox = NATSMailbox(maxBufferedBytes: maxBufferedBytes)
        loop = NATSConnectionLoop(
            mailbox: mailbox, address: address.socketAddress, name: name, echo: echo, timings: timings,
            onMessage: onMessage, onState: onState)
        threadName = "nats-" + name
    }

    deinit { stop() }

    /// Starts the client's thread, which connects and keeps reconnecting
    /// until `stop`. A second call, or one after `stop`, does nothing.
    public func start() {
        thread.withLock { thread in
            guard thread == nil && !mailbox.isStopped else { return }
            let loop = loop
            thread = NamedThread.spawn(name: threadName) { loop.run() }
        }
    }

    /// Writes what is queued if connected (waiting up to a second for the
    /// server to confirm it), closes the connection and joins the thread.
    /// Publications still queued after that are dropped. Final.
    public func stop() {
        mailbox.stop()
        guard let running = thread.withLock({ $0.take() }) else {
            _ = mailbox.setConnection(.disconnected)  // never started: no thread to report it
            return
        }
        if !running.isCurrent { running.join() }
    }

    /// Subscribes to `subject` (wildcards allowed) with a sid of its own;
    /// subscribing again to the same subject does nothing. Remembered and
    /// sent again on every new connection. A subject that is empty, longer
    /// than 1 KiB or holds a blank or line break is ignored.
    public func subscribe(_ subject: String) {
        guard NATSEncoding.isValidSubject(subject) else { return }
        mailbox.subscribe(subject)
    }

    /// Withdraws the subscription to `subject`; messages already on their way
    /// for it are not delivered.
    public func unsubscribe(_ subject: String) {
        guard NATSEncoding.isValidSubject(subject) else { return }
        mailbox.unsubscribe(subject)
    }

    /// Queues a PUB; thread-safe, never blocks. While disconnected,
    /// publications are buffered (up to maxBufferedBytes) and sent after
    /// reconnect, in order. Returns false when the buffer is full (the
    /// publication is dropped), and likewise for a payload over the server's
    /// max_payload, an invalid subject (see `subscribe`) or a stopped client.
    @discardableResult public func publish(_ subject: String, _ payload: [UInt8]) -> Bool {
        guard NATSEncoding.isValidSubject(subject) else {
            mailbox.dropped.add(1, ordering: .relaxed)
            return false
        }
        return mailbox.publish(subject, payload)
    }

    public var state: NATSConnectionState { mailbox.connection }

    public var statistics: NATSStatistics {
        NATSStatistics(
            messagesIn: mailbox.messagesIn.load(ordering: .relaxed),
            messagesOut: mailbox.messagesOut.load(ordering: .relaxed),
            reconnects: mailbox.reconnects.load(ordering: .relaxed),
            dropped: mailbox.dropped.load(ordering: .relaxed))
    }
}
