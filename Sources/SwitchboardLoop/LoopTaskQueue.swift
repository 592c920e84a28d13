import Synchronization

/// Work posted to a loop from other threads. Bounded, so a stalled loop
/// pushes back on its producers instead of growing without limit.
final class LoopTaskQueue: Sendable {
    typealias Task = @Sendable () -> Void

    private let state: Mutex<[Task]>
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        state = Mutex([])
    }

    /// Returns nil when full; otherwise whether the queue was empty before,
    /// which is when the loop needs a wake-up (it drains everything it finds).
    func push(_ task: @escaping Task) -> Bool? {
        state.withLock { tasks -> Bool? in
            if tasks.count >= capacity { return nil }
            tasks.append(task)
            return tasks.count == 1
        }
    }

    /// Takes everything queued, swapping in `spare` (an empty array with capacity) to reuse storage.
    func drain(into spare: inout [Task]) {
        state.withLock { tasks in swap(&tasks, &spare) }
    }
}
