import SwitchboardSystem
import Synchronization

/// The thread of a periodic job that blocks on the database or the disk
/// (the orphan sweeper, the webhook gauges, the search indexer), which no
/// event loop may run: started once, paused in steps of at most 100 ms so
/// that `stop` is heard soon, and joined by `stop`.
final class BackgroundThread: Sendable {
    private let name: String
    private let stopped = Atomic<Bool>(false)
    private let thread = Mutex<NamedThread?>(nil)

    init(name: String) {
        self.name = name
    }

    var isStopped: Bool { stopped.load(ordering: .relaxed) }

    /// Runs `body` on the thread; a second call while it runs does nothing.
    func start(_ body: @escaping @Sendable () -> Void) {
        thread.withLock { thread in
            guard thread == nil else { return }
            thread = NamedThread.spawn(name: name, body)
        }
    }

    /// Asks the job to stop and waits for its thread to end.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        let handle = thread.withLock { thread -> NamedThread? in
            defer { thread = nil }
            return thread
        }
        handle?.join()
    }

    /// Sleeps `milliseconds`, or less once stopped, or, with `wakeup`, once
    /// it is signalled (and drains it); false once stopped.
    @discardableResult
    func pause(milliseconds: Int, wakeup: EventFD? = nil) -> Bool {
        var poll = wakeup.map { PollSet([$0.fd]) }
        var left = milliseconds
        while left > 0 && !isStopped {
            let step = min(100, left)
            if poll == nil {
                ThisProcess.sleep(milliseconds: step)
            } else if ((try? poll?.wait(timeoutMilliseconds: Int32(step))) ?? 0) > 0 {
                wakeup?.drain()
                break
            }
            left -= step
        }
        return !isStopped
    }
}
