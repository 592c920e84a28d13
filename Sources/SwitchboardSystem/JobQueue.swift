import Synchronization

/// A bounded hand-over of jobs from any thread to the threads that run them
/// (the event loops to the readers, a webhook dispatcher thread to its
/// database calls, an upload to its attachment worker): a ring of `capacity`
/// slots behind a mutex held only for an append or a removal, and a
/// semaphore counting the posts a taker may take.
///
/// The bound applies to `submit`. `submitContinuation` is for the rest of
/// work already accepted (an upload's pieces, its finish, its abort), which
/// refusing would strand: it is taken whatever the depth, the ring growing
/// if it must, and its caller bounds it (the attachment store by its
/// in-flight budget and window).
///
/// Every accepted job posts once, after it is in the ring; `stop` posts once
/// per taker. A taker woken with the ring empty has therefore been woken by
/// `stop` (a job's post is only made after its job is in), so it exits; until
/// then it finishes whatever is queued.
public final class JobQueue<Job: Sendable>: Sendable {
    private struct State {
        var ring: [Job?]
        var head = 0
        var count = 0
        var stopped = false

        mutating func push(_ job: Job) {
            if count == ring.count {
                // Unroll into a ring twice the size, oldest first.
                var grown = [Job?](repeating: nil, count: ring.count * 2)
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
    public let capacity: Int

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
        state = Mutex(State(ring: Array(repeating: nil, count: max(1, capacity))))
    }

    /// New work: false at once when `capacity` jobs wait or the queue is
    /// stopped; never waits for a taker.
    public func submit(_ job: Job) -> Bool {
        enqueue(job, bounded: true)
    }

    /// The continuation of work already accepted: false only once stopped.
    public func submitContinuation(_ job: Job) -> Bool {
        enqueue(job, bounded: false)
    }

    private func enqueue(_ job: Job, bounded: Bool) -> Bool {
        let accepted = state.withLock { state -> Bool in
            guard !state.stopped, !bounded || state.count < capacity else { return false }
            state.push(job)
            return true
        }
        if accepted { available.post() }
        return accepted
    }

    /// The next job, sleeping while there is none; nil once stopped and drained.
    public func take() -> Job? {
        while true {
            available.wait()
            let (job, stopped) = state.withLock { state -> (Job?, Bool) in
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

    /// Refuses new jobs and wakes `takers` threads to exit once the ring is empty.
    public func stop(takers: Int) {
        let first = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        for _ in 0..<takers { available.post() }
    }

    public var isStopped: Bool { state.withLock { $0.stopped } }
    public var depth: Int { state.withLock { $0.count } }
}
