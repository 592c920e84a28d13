import SwitchboardSystem
import Synchronization

/// A command, when it was accepted (for the flush deadline) and its
/// session's home lane (`LanePlan`).
struct QueuedCommand: Sendable {
    var command: WriteCommand
    var acceptedAt: UInt64
    var home: Int

    /// The command's answer, addressed back with its timestamps.
    func result(_ outcome: WriteOutcome) -> WriteResult {
        WriteResult(
            origin: command.origin, token: command.token, outcome: outcome, receivedAt: command.receivedAt,
            acceptedAt: acceptedAt)
    }
}

/// The hand-over from every submitting thread to the writer thread: one short
/// mutex around an array append, and an eventfd signalled only when the writer
/// has a reason to look: the queue was wholly empty (the writer may be idle),
/// or a full batch is now waiting, told once per `take` (a count crossing the
/// full-batch mark could step over it when the writer's sends lower it, and
/// a writer waiting on a commit has no deadline that would look instead;
/// `OverloadTests` caught that). While the writer holds commands (waiting
/// for the commit in flight, or for the batch delay) it wakes when the commit
/// returns or at that deadline anyway and takes everything then, so waking it
/// for each arrival would only cost a context switch per message (on a shared
/// core, one per message is what limited throughput).
final class SubmitQueue: Sendable {
    enum Status: Sendable, Equatable {
        /// Connecting for the first time, or connected: commands are queued.
        case accepting
        /// Lost the database and reconnecting: refuse at once.
        case unavailable
        case stopped
    }

    private struct State {
        var incoming: [QueuedCommand] = []
        /// Accepted and not yet sent: `incoming` plus what the writer holds back.
        var waiting = 0
        /// A full batch's wake-up was sent since the writer's last `take`.
        var toldFull = false
        var status = Status.accepting
    }

    private let state = Mutex(State())
    private let capacity: Int
    private let fullBatch: Int
    /// The writer's wake-up: signalled by submit and stop, polled by the writer.
    let wakeup: EventFD

    init(capacity: Int, fullBatch: Int) {
        self.capacity = capacity
        self.fullBatch = fullBatch
        do {
            wakeup = try EventFD()
        } catch {
            preconditionFailure("\(error)")  // only when the process is out of descriptors at start-up
        }
    }

    deinit { wakeup.close() }

    func submit(_ command: WriteCommand, home: Int, metrics: WriterMetrics) -> SubmitOutcome {
        let now = MonotonicClock.nanoseconds()
        let (outcome, wake) = state.withLock { state -> (SubmitOutcome, Bool) in
            guard state.status == .accepting else { return (.unavailable, false) }
            guard state.waiting < capacity else { return (.overloaded, false) }
            state.incoming.append(QueuedCommand(command: command, acceptedAt: now, home: home))
            state.waiting += 1
            // `waiting` counts what the writer holds too: 1 means it holds nothing.
            if state.waiting == 1 { return (.accepted, true) }
            guard state.waiting >= fullBatch, !state.toldFull else { return (.accepted, false) }
            state.toldFull = true
            return (.accepted, true)
        }
        if wake { signal() }
        if outcome == .overloaded { metrics.overloaded.add(1, ordering: .relaxed) }
        return outcome
    }

    /// Moves every queued command to the end of `pending` (writer thread).
    /// `spare` is an empty array whose storage is reused for the next round.
    func take(into pending: inout [QueuedCommand], spare: inout [QueuedCommand]) -> Status {
        let status = state.withLock { state in
            if !state.incoming.isEmpty { swap(&state.incoming, &spare) }
            state.toldFull = false
            return state.status
        }
        if !spare.isEmpty {
            if pending.isEmpty {
                swap(&pending, &spare)
            } else {
                pending.append(contentsOf: spare)
                spare.removeAll(keepingCapacity: true)
            }
        }
        return status
    }

    /// The writer sent `count` commands: they no longer count against capacity.
    func markSent(_ count: Int) {
        state.withLock { $0.waiting -= count }
    }

    /// Sets the status; when refusing, also takes the queued commands so the
    /// caller can fail them (none can slip in between).
    func setStatus(_ status: Status) -> [QueuedCommand] {
        let taken = state.withLock { state -> [QueuedCommand] in
            if state.status != .stopped { state.status = status }
            guard state.status != .accepting else { return [] }
            let taken = state.incoming
            state.incoming = []
            state.waiting -= taken.count
            return taken
        }
        return taken
    }

    /// The writer dropped `count` commands it held (failed them): uncount them.
    func forget(_ count: Int) { markSent(count) }

    func stop() {
        state.withLock { $0.status = .stopped }
        signal()
    }

    var status: Status { state.withLock { $0.status } }
    /// Whether commands arrived since the writer's last `take` (it checks
    /// before sleeping with nothing held, as no wake-up may have been sent).
    var hasIncoming: Bool { state.withLock { !$0.incoming.isEmpty } }
    var depth: Int { state.withLock { $0.waiting } }

    func signal() { wakeup.signal() }

    /// Resets the eventfd counter before the writer looks at the queue, so a
    /// submit that lands after the look wakes the next poll.
    func drainWakeups() { wakeup.drain() }
}
