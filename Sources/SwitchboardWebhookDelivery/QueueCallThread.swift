import SwitchboardSystem
import Synchronization

/// A dispatcher thread's claims and records, run one after another on a
/// thread of their own. While the database answers (a claim of a few hundred
/// deliveries takes milliseconds), the dispatcher thread goes on finishing
/// requests and starting the next in their slots: called in line, a capacity
/// drain to one local receiver kept 5.7-8 of its endpoint's 16 slots busy on
/// average (docs/webhooks.md, "Claims and records off the request thread").
final class QueueCallThread: Sendable {
    typealias Call = @Sendable () -> Void

    /// A worker has at most one claim and one record in flight.
    private let calls = JobQueue<Call>(capacity: 2)
    private let thread = Mutex<NamedThread?>(nil)

    init(name: String) {
        let calls = calls
        let spawned = NamedThread.spawn(name: name) {
            while let call = calls.take() { call() }
        }
        thread.withLock { $0 = spawned }
    }

    /// Runs `call` after those posted before it. The caller keeps to one
    /// claim and one record at a time: a third call in flight is its bug.
    func post(_ call: @escaping Call) {
        let accepted = calls.submit(call)
        precondition(accepted, "a dispatcher thread posted a third queue call, or one after stopping")
    }

    /// Runs what was posted, then ends the thread and joins it.
    func stop() {
        calls.stop(takers: 1)
        let stopped = thread.withLock { thread in
            defer { thread = nil }
            return thread
        }
        stopped?.join()
    }
}
