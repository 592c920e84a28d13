import SwitchboardIO
import SwitchboardSystem
import Synchronization

/// An event loop without epoll, for tests: the test's own thread is the
/// loop's. Other threads (the database's) queue tasks with `execute`, which
/// run when the test calls `runPending`; time moves only when the test calls
/// `advance`, firing the deadlines its connections set on the way. In the
/// spirit of SwiftNIO's `EmbeddedEventLoop`.
///
/// Threading: `execute`, `stop` and `isRunning` from any thread; the rest on
/// the test's thread.
public final class EmbeddedLoop: ConnectionLoop, @unchecked Sendable {
    public let index: Int
    public private(set) var now: UInt64
    public private(set) var wokeAt: UInt64 = 0
    private let queue = Mutex<[@Sendable () -> Void]>([])
    private let running = Atomic<Bool>(true)
    /// While queued tasks run, work after their writes waits (`afterWrites`), as on a real loop.
    private var holdsWrites = false
    private var afterWriteWork: [() -> Void] = []
    /// Open connections, in the order they opened.
    public private(set) var connections: [EmbeddedConnection] = []
    /// Connections that closed after a flush: their close completes on the next `runPending`,
    /// as a socket's does when the peer's FIN arrives in a later pass.
    private var closing: [EmbeddedConnection] = []
    /// Connections that resumed reading: their waiting input is read after the tasks, as a loop's read retries are.
    private var resumed: [EmbeddedConnection] = []
    /// Work waiting for the clock (`after`), with when it is due.
    private var scheduled: [(due: UInt64, work: () -> Void)] = []

    /// `now` starts at the monotonic clock, as a real loop's does.
    public init(index: Int = 0) {
        self.index = index
        now = MonotonicClock.coarseMilliseconds()
    }

    // MARK: Any thread

    /// Queues `task` for the next `runPending`. The queue has no bound.
    @discardableResult
    public func execute(_ task: @escaping @Sendable () -> Void) -> Bool {
        queue.withLock { $0.append(task) }
        return true
    }

    public var isRunning: Bool { running.load(ordering: .acquiring) }

    /// Tasks queued after this never run (a stopped loop).
    public func stop() { running.store(false, ordering: .releasing) }

    // MARK: The test's thread

    /// Runs `work` once the writes made so far are out: at once, or after the
    /// queued tasks when called from one of them.
    public func afterWrites(_ work: @escaping () -> Void) {
        if holdsWrites { afterWriteWork.append(work) } else { work() }
    }

    /// Runs the tasks queued so far and completes pending closes; true if anything ran.
    @discardableResult
    public func runPending() -> Bool {
        let tasks = queue.withLock { queued in
            defer { queued.removeAll() }
            return queued
        }
        holdsWrites = true
        for task in tasks { task() }
        holdsWrites = false
        let work = afterWriteWork
        afterWriteWork.removeAll()
        for item in work { item() }
        let reads = resumed
        resumed.removeAll()
        for connection in reads { connection.readWaitingInput() }
        let closes = closing
        closing.removeAll()
        for connection in closes { connection.finishClose() }
        return !tasks.isEmpty || !work.isEmpty || !reads.isEmpty || !closes.isEmpty
    }

    /// Runs `work` once the clock has moved `milliseconds` on (`advance`).
    public func after(milliseconds: UInt64, _ work: @escaping () -> Void) {
        scheduled.append((now + milliseconds, work))
    }

    /// Moves the clock on by `milliseconds`, firing each deadline and each
    /// `after` that passes at its own time, earliest first (a handler may set a
    /// new one meanwhile).
    public func advance(by milliseconds: UInt64) {
        let target = now + milliseconds
        while true {
            let deadline = connections.filter({ ($0.deadline ?? .max) <= target }).min(by: {
                $0.deadline! < $1.deadline!
            })
            let work = scheduled.indices.filter({ scheduled[$0].due <= target }).min(by: {
                scheduled[$0].due < scheduled[$1].due
            })
            if let work, deadline.map({ scheduled[work].due <= $0.deadline! }) ?? true {
                let (due, item) = scheduled.remove(at: work)
                now = max(now, due)
                item()
            } else if let deadline {
                now = max(now, deadline.deadline!)
                deadline.fireTimer()
            } else {
                break
            }
        }
        now = target
    }

    /// New input is being seen: the latency stages count from here.
    func wake() { wokeAt = MonotonicClock.nanoseconds() }

    func opened(_ connection: EmbeddedConnection) { connections.append(connection) }

    func closeLater(_ connection: EmbeddedConnection) { closing.append(connection) }

    func readLater(_ connection: EmbeddedConnection) { resumed.append(connection) }

    func closed(_ connection: EmbeddedConnection) { connections.removeAll { $0 === connection } }
}
