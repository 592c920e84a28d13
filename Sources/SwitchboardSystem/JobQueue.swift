import Synchronization

/// A bounded hand-over of jobs from any thread to the threads that run them
/// (the event loops to the readers, a webhook dispatcher thread to its
/// database calls): a fixed ring of `capacity` slots behind a mutex held
/// only for an append or a removal, and a semaphore counting the posts a
/// taker may take.
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
    }

    private let state: Mutex<State>
    private let available = Semaphore()
    public let capacity: Int

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
        state = Mutex(State(ring: Array(repeating: nil, count: max(1, capacity))))
    }

    /// False at once when full or stopped; never waits for a reader.
    public func submit(_ job: Job) -> Bool {
        let accepted = state.withLock { state -> Bool in
            guard !state.stopped, state.count < state.ring.count else { return false }
            state.ring[(state.head + state.count) % state.ring.count] = job
            state.count += 1
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
