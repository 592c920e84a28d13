import SwitchboardSystem

/// The client's thread body: connect, hand-shake, then move publications out
/// and messages in on one socket (`serve`, in NATSConnectionLoop+Serve.swift);
/// when the connection is lost, wait (50 ms, doubling after each failed
/// attempt up to 2 s) and connect again, until the client is stopped.
///
/// Threading: everything here belongs to the client's thread alone (created
/// by `NATSClient` and handed to the thread once, hence @unchecked Sendable).
/// It shares only `mailbox`, which is thread-safe; the callbacks run here.
final class NATSConnectionLoop: @unchecked Sendable {
    /// How far the current connection has got.
    enum Phase: Equatable {
        /// The TCP connect is under way.
        case connecting
        /// Connected; the server speaks first, with INFO.
        case awaitingInfo
        /// CONNECT, the subscriptions and a PING are sent: its PONG means the
        /// server accepted them all.
        case awaitingPong
        /// Publications and subscription changes flow.
        case connected
    }

    let mailbox: NATSMailbox
    let address: SocketAddress
    let name: String
    let echo: Bool
    let timings: NATSTimings
    let onMessage: @Sendable (String, [UInt8]) -> Void
    let onState: @Sendable (NATSConnectionState) -> Void

    // Kept across connections.

    /// Publications taken from the mailbox and not written in full yet.
    var outbox = PublishBuffer()
    /// The empty buffer swapped for the mailbox's queue, so taking never copies.
    var spare = PublishBuffer()
    var changes: [NATSMailbox.SubscriptionChange] = []
    var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// Connections whose handshake completed.
    var connections = 0

    // Per connection: reset by `serve`.

    var phase = Phase.connecting
    var parser = NATSParser()
    /// Our own frames (CONNECT, SUB, UNSUB, PING, PONG), written before
    /// publications and dropped with the connection: the next one re-sends
    /// what matters (the subscriptions) from the mailbox.
    var control: [UInt8] = []
    var controlWritten = 0
    /// Subjects by sid, as this connection has been told: a message for any
    /// other sid (unsubscribed a moment ago) is not delivered.
    var subjects: [UInt64: String] = [:]
    var keepAlive: KeepAlive

    init(
        mailbox: NATSMailbox, address: SocketAddress, name: String, echo: Bool, timings: NATSTimings,
        onMessage: @escaping @Sendable (String, [UInt8]) -> Void,
        onState: @escaping @Sendable (NATSConnectionState) -> Void
    ) {
        self.mailbox = mailbox
        self.address = address
        self.name = name
        self.echo = echo
        self.timings = timings
        self.onMessage = onMessage
        self.onState = onState
        keepAlive = KeepAlive(interval: timings.pingInterval, maxOutstanding: timings.maxOutstandingPings, now: 0)
    }

    func run() {
        var backoff = timings.backoffMinimum
        while !mailbox.isStopped {
            if serve() { backoff = timings.backoffMinimum }
            if mailbox.isStopped { break }
            pause(milliseconds: backoff)
            backoff = min(backoff * 2, timings.backoffMaximum)
        }
        report(.disconnected)
    }

    /// Records the state and tells `onState` if it changed.
    func report(_ state: NATSConnectionState) {
        if mailbox.setConnection(state) { onState(state) }
    }

    /// Sleeps for the reconnect backoff, waking early when the client stops.
    /// Publishers do not signal while disconnected, so any wake-up is `stop`.
    private func pause(milliseconds: UInt64) {
        let deadline = Self.now() + milliseconds
        var wakeup = PollSet([mailbox.wakeup.fd])
        while !mailbox.isStopped {
            let now = Self.now()
            if now >= deadline { return }
            _ = try? wakeup.wait(timeoutMilliseconds: Int32(deadline - now))
            mailbox.drainWakeups()
        }
    }

    /// Monotonic milliseconds.
    static func now() -> UInt64 { MonotonicClock.nanoseconds() / 1_000_000 }
}
