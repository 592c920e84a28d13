import SwitchboardSystem
import Synchronization

/// What the threads calling `publish` and `subscribe` leave for the client's
/// thread, and what it reports back: one short mutex around appends, and an
/// eventfd signalled only when the thread has a reason to look. While the
/// client is not connected nothing wakes it (it sends nothing before the
/// handshake is over); while connected, only the publication that finds the
/// queue empty does: the thread takes everything queued at once, so waking
/// it for each one would only cost a system call per message.
final class NATSMailbox: Sendable {
    enum SubscriptionChange: Sendable, Equatable {
        case subscribe(subject: String, sid: UInt64)
        case unsubscribe(sid: UInt64)
    }

    private struct State {
        var publications = PublishBuffer()
        /// Publications accepted and not yet written in full, in bytes: those
        /// queued here and those the thread holds. What `maxBufferedBytes` bounds.
        var bufferedBytes = 0
        /// Every active subscription, sent again on each new connection.
        var subscriptions: [String: UInt64] = [:]
        /// Changes since the thread last took them (sent on the live connection).
        var changes: [SubscriptionChange] = []
        var nextSID: UInt64 = 1
        var maxPayload = NATSServerInfo.defaultMaxPayload
        var connection = NATSConnectionState.connecting
        var stopped = false
    }

    private let state = Mutex(State())
    let maxBufferedBytes: Int
    /// The client thread's wake-up: polled next to its socket.
    let wakeup: EventFD

    // Statistics: written by the client's thread (dropped: by publishers), read by anyone.
    let messagesIn = Atomic<Int>(0)
    let messagesOut = Atomic<Int>(0)
    let reconnects = Atomic<Int>(0)
    let dropped = Atomic<Int>(0)

    init(maxBufferedBytes: Int) {
        self.maxBufferedBytes = maxBufferedBytes
        do {
            wakeup = try EventFD()
        } catch {
            preconditionFailure("\(error)")  // only when the process is out of descriptors
        }
    }

    deinit { wakeup.close() }

    // MARK: Any thread

    /// Queues a publication (the subject is valid); false when refused.
    func publish(_ subject: String, _ payload: [UInt8]) -> Bool {
        let size = NATSEncoding.publicationSize(subject: subject, payloadCount: payload.count)
        let (accepted, wake) = state.withLock { state -> (Bool, Bool) in
            guard
                !state.stopped && payload.count <= state.maxPayload
                    && state.bufferedBytes + size <= maxBufferedBytes
            else { return (false, false) }
            let wasEmpty = state.publications.isEmpty
            state.publications.append(subject: subject, payload: payload)
            state.bufferedBytes += size
            return (true, wasEmpty && state.connection == .connected)
        }
        if wake { wakeup.signal() }
        if !accepted { dropped.add(1, ordering: .relaxed) }
        return accepted
    }

    /// One sid per subject: subscribing twice is a no-op.
    func subscribe(_ subject: String) {
        let wake = state.withLock { state -> Bool in
            guard !state.stopped && state.subscriptions[subject] == nil else { return false }
            let sid = state.nextSID
            state.nextSID += 1
            state.subscriptions[subject] = sid
            state.changes.append(.subscribe(subject: subject, sid: sid))
            return state.connection == .connected
        }
        if wake { wakeup.signal() }
    }

    func unsubscribe(_ subject: String) {
        let wake = state.withLock { state -> Bool in
            guard !state.stopped, let sid = state.subscriptions.removeValue(forKey: subject) else { return false }
            state.changes.append(.unsubscribe(sid: sid))
            return state.connection == .connected
        }
        if wake { wakeup.signal() }
    }

    func stop() {
        state.withLock { $0.stopped = true }
        wakeup.signal()
    }

    var isStopped: Bool { state.withLock { $0.stopped } }
    var connection: NATSConnectionState { state.withLock { $0.connection } }

    // MARK: The client's thread

    /// Swaps the queued publications into `spare` (empty) and the pending
    /// subscription changes into `changes` (empty); returns whether the
    /// client is stopping. Taken after `stop`, they are the last ones.
    func take(publications spare: inout PublishBuffer, changes: inout [SubscriptionChange]) -> Bool {
        state.withLock { state in
            if !state.publications.isEmpty { swap(&state.publications, &spare) }
            if !state.changes.isEmpty { swap(&state.changes, &changes) }
            return state.stopped
        }
    }

    /// Every subscription, by sid, for a new connection; the pending changes
    /// are already part of it and are dropped.
    func subscriptionsForNewConnection() -> [(subject: String, sid: UInt64)] {
        state.withLock { state in
            state.changes.removeAll()
            return state.subscriptions.map { (subject: $0.key, sid: $0.value) }.sorted { $0.sid < $1.sid }
        }
    }

    /// `frames` publications (`bytes` in all) were written in full.
    func didSend(frames: Int, bytes: Int) {
        state.withLock { $0.bufferedBytes -= bytes }
        messagesOut.add(frames, ordering: .relaxed)
    }

    func setMaxPayload(_ maxPayload: Int) {
        state.withLock { $0.maxPayload = maxPayload }
    }

    /// Records the state; returns whether it changed (and must be reported).
    func setConnection(_ connection: NATSConnectionState) -> Bool {
        state.withLock { state in
            defer { state.connection = connection }
            return state.connection != connection
        }
    }

    /// Resets the eventfd before the thread looks at the mailbox, so that an
    /// append landing after the look wakes the next poll.
    func drainWakeups() { wakeup.drain() }
}
