import SwitchboardSystem
import Synchronization

/// A dispatcher thread's claims and records, run one after another on a
/// thread of their own. While the database answers (a claim of a few hundred
/// deliveries takes milliseconds), the dispatcher thread goes on finishing
/// requests and starting the next in their slots: called in line, a capacity
/// drain to one local receiver kept 6.5 of its endpoint's 16 slots busy on
/// average (docs/webhooks.md, "Claims and records off the request thread").
final class QueueCallThread: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var stopping = false
    }

    private let state = Mutex(State())
    private let available = Semaphore()
    private let thread = Mutex<NamedThread?>(nil)

    init(name: String) {
        let spawned = NamedThread.spawn(name: name) { [self] in run() }
        thread.withLock { $0 = spawned }
    }

    /// Runs `job` after those posted before it.
    func post(_ job: @escaping @Sendable () -> Void) {
        state.withLock { $0.jobs.append(job) }
        available.post()
    }

    /// Runs what was posted, then ends the thread and joins it.
    func stop() {
        state.withLock { $0.stopping = true }
        available.post()
        let stopped = thread.withLock { thread in
            defer { thread = nil }
            return thread
        }
        stopped?.join()
    }

    private func run() {
        while true {
            available.wait()
            let (job, stopping) = state.withLock { state -> ((@Sendable () -> Void)?, Bool) in
                (state.jobs.isEmpty ? nil : state.jobs.removeFirst(), state.stopping)
            }
            if let job {
                job()
            } else if stopping {
                return
            }
        }
    }
}
