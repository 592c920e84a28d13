import SwitchboardSystem
import Synchronization

/// What a reader thread runs; it handles its own errors.
public typealias ReaderJob = @Sendable (ChatQueries) -> Void

/// The bounded hand-over from any thread (the event loops) to the reader
/// threads: a fixed ring of `capacity` slots behind a mutex held only for an
/// append or a removal, and a semaphore counting the posts a reader may take.
///
/// Every accepted job posts once, after it is in the ring; `stop` posts once
/// per reader. A reader woken with the ring empty has therefore been woken by
/// `stop` (a job's post is only made after its job is in), so it exits; until
/// then it finishes whatever is queued.
final class JobQueue: Sendable {
    private struct State {
        var ring: [ReaderJob?]
        var head = 0
        var count = 0
        var stopped = false
    }

    private let state: Mutex<State>
    private let available = Semaphore()
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        state = Mutex(State(ring: Array(repeating: nil, count: max(1, capacity))))
    }

    /// False at once when full or stopped; never waits for a reader.
    func submit(_ job: @escaping ReaderJob) -> Bool {
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
    func take() -> ReaderJob? {
        while true {
            available.wait()
            let (job, stopped) = state.withLock { state -> (ReaderJob?, Bool) in
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

    /// Refuses new jobs and wakes `readers` threads to exit once the ring is empty.
    func stop(readers: Int) {
        let first = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        for _ in 0..<readers { available.post() }
    }

    var isStopped: Bool { state.withLock { $0.stopped } }
    var depth: Int { state.withLock { $0.count } }
}
