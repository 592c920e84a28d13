import SwitchboardSystem
import Synchronization

/// What an attachment worker runs, with the worker's own state.
typealias AttachmentJob = @Sendable (AttachmentWorkerContext) -> Void

/// One worker's queue: a ring behind a mutex held only for an append or a
/// removal, and a semaphore counting the posts its thread may take (as the
/// readers' JobQueue, in SwitchboardSystem).
///
/// The bound applies to new work only (an upload's start, a lookup, a read):
/// with `capacity` jobs waiting, new work is refused at once. The rest of an
/// upload already accepted (its pieces, its finish, its abort) is always
/// taken, the ring growing if it must: refusing it would strand the upload,
/// and the caller bounds those bytes by its in-flight budget and window.
final class WorkQueue: Sendable {
    private struct State {
        var ring: [AttachmentJob?]
        var head = 0
        var count = 0
        var stopped = false

        mutating func push(_ job: @escaping AttachmentJob) {
            if count == ring.count {
                // Unroll into a ring twice the size, oldest first.
                var grown = [AttachmentJob?](repeating: nil, count: ring.count * 2)
                for index in 0..<count { grown[index] = ring[(head + index) % ring.count] }
                ring = grown
                head = 0
            }
            ring[(head + count) % ring.count] = job
            count += 1
        }
    }

    private let state: Mutex<State>
    private let available = Semaphore()
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        state = Mutex(State(ring: Array(repeating: nil, count: max(1, capacity))))
    }

    /// New work: false at once when `capacity` jobs wait or the queue is stopped.
    func submit(_ job: @escaping AttachmentJob) -> Bool {
        enqueue(job, bounded: true)
    }

    /// The continuation of work already accepted: false only once stopped.
    func submitContinuation(_ job: @escaping AttachmentJob) -> Bool {
        enqueue(job, bounded: false)
    }

    private func enqueue(_ job: @escaping AttachmentJob, bounded: Bool) -> Bool {
        let accepted = state.withLock { state -> Bool in
            guard !state.stopped, !bounded || state.count < capacity else { return false }
            state.push(job)
            return true
        }
        if accepted { available.post() }
        return accepted
    }

    /// The next job, sleeping while there is none; nil once stopped and drained.
    func take() -> AttachmentJob? {
        while true {
            available.wait()
            let (job, stopped) = state.withLock { state -> (AttachmentJob?, Bool) in
                guard state.count > 0 else { return (nil, state.stopped) }
                let job = state.ring[state.head]
                state.ring[state.head] = nil
                state.head = (state.head + 1) % state.ring.count
                state.count -= 1
                return (job, state.stopped)
            }
            if let job { return job }
            if stopped { return nil }
        }
    }

    /// Refuses new jobs; the thread exits once the queued ones are done.
    func stop() {
        let first = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        if first { available.post() }
    }

    var isStopped: Bool { state.withLock { $0.stopped } }
    var depth: Int { state.withLock { $0.count } }
}
