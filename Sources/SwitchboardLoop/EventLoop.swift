import SwitchboardSystem
import Synchronization

/// Something registered with a loop's epoll instance.
public protocol EventSource: AnyObject {
    func handleEvents(_ events: UInt32)
}

/// One event loop: an epoll instance, the connections it owns for life, a
/// timer wheel, and a bounded queue through which other threads post work.
///
/// Threading: everything except `execute(_:)`, `stop()` and the immutable
/// properties belongs to the loop's own thread. Nothing here blocks.
public final class EventLoop: @unchecked Sendable {
    public let index: Int
    private let epfd: Int32
    private let wakeup: EventFD
    private let ticker: TimerFD
    private var tickerArmed = false
    private let tasks: LoopTaskQueue
    private let running = Atomic<Bool>(true)

    private var sources: [EventSource?]
    private var generations: [UInt32]
    private var timers: TimerWheel
    private var expired: [Connection] = []
    private var taskBatch: [LoopTaskQueue.Task] = []
    /// Connections that used their read budget while data was still waiting.
    var readAgain: [Connection] = []
    /// Work for later in the pass, after the posted tasks and the read
    /// retries (a listener's next turn of accepts, `Listener.acceptsPerTurn`);
    /// the loop polls rather than sleeps while any is waiting.
    private var laterInPass: [() -> Void] = []
    private var laterInPassBatch: [() -> Void] = []
    /// One-shot work at a time (rare: accept retries, shutdown grace periods).
    private var scheduledWork: [(deadline: UInt64, work: () -> Void)] = []

    /// The loop's time, refreshed once per pass.
    public private(set) var now: UInt64
    /// When the current pass's epoll_wait returned (monotonic nanoseconds):
    /// the moment this pass's input was seen, for the latency stages.
    public private(set) var wokeAt: UInt64 = 0
    /// Work to run once the held writes of the current pass are out (`afterWrites`).
    private var afterWriteWork: [() -> Void] = []

    /// Shared receive buffers: connections never own read memory while idle.
    let readBuffer: UnsafeMutableRawBufferPointer
    let plaintextBuffer: UnsafeMutableRawBufferPointer
    /// Writes made while a connection handles its input are gathered here and
    /// sent with one system call when it is done.
    var cork: [UInt8] = []
    unowned(unsafe) var corkOwner: Connection?
    /// While posted tasks run (fan-out of committed batches), writes wait in
    /// each connection's queue and go out once per connection when the tasks
    /// are done: several batches handled in one pass cost each subscriber one
    /// system call, and the busier the loop, the more each call carries.
    var holdsWrites = false
    var heldConnections: [Connection] = []

    public private(set) var connectionCount = 0

    /// Told when this loop becomes saturated or stops being so.
    private let saturation: LoopSaturation?
    private var busy: BusyWindow

    /// `saturation`: shared by the process's loops, read by work that yields to them.
    public init(
        index: Int, maxFileDescriptors: Int, taskQueueCapacity: Int = 65536, saturation: LoopSaturation? = nil
    ) throws(SystemError) {
        self.index = index
        self.saturation = saturation
        busy = BusyWindow(startingAt: MonotonicClock.nanoseconds())
        epfd = try Epoll.create()
        wakeup = try EventFD()
        ticker = try TimerFD()
        tasks = LoopTaskQueue(capacity: taskQueueCapacity)
        sources = Array(repeating: nil, count: maxFileDescriptors + 16)
        generations = Array(repeating: 0, count: maxFileDescriptors + 16)
        now = MonotonicClock.coarseMilliseconds()
        timers = TimerWheel(nowMilliseconds: now)
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        plaintextBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        cork.reserveCapacity(64 * 1024)
        try Epoll.add(epfd, fd: wakeup.fd, events: Epoll.readable | Epoll.edgeTriggered, data: Self.wakeupToken)
        try Epoll.add(epfd, fd: ticker.fd, events: Epoll.readable | Epoll.edgeTriggered, data: Self.tickerToken)
    }

    deinit {
        readBuffer.deallocate()
        plaintextBuffer.deallocate()
        wakeup.close()
        ticker.close()
        Posix.close(epfd)
    }

    // MARK: Cross-thread entry points

    /// Runs `task` on the loop's thread. Returns false when the queue is full.
    @discardableResult
    public func execute(_ task: @escaping @Sendable () -> Void) -> Bool {
        guard let wasEmpty = tasks.push(task) else { return false }
        if wasEmpty { wakeup.signal() }
        return true
    }

    public func stop() {
        running.store(false, ordering: .releasing)
        wakeup.signal()
    }

    /// False once `stop()` was called: tasks posted after that never run.
    public var isRunning: Bool { running.load(ordering: .acquiring) }

    // MARK: Loop-thread API

    /// Registers `source` for `fd`, edge-triggered for reading and writing.
    /// Both are registered once so a blocked write never costs an epoll_ctl.
    public func register(fd: Int32, source: EventSource, events: UInt32) throws(SystemError) {
        precondition(Int(fd) < sources.count, "fd \(fd) beyond the loop's table; raise maxFileDescriptors")
        generations[Int(fd)] &+= 1
        sources[Int(fd)] = source
        let data = UInt64(generations[Int(fd)]) << 32 | UInt64(UInt32(fd))
        do throws(SystemError) {
            try Epoll.add(epfd, fd: fd, events: events, data: data)
        } catch {
            sources[Int(fd)] = nil
            throw error
        }
    }

    /// Forgets `fd`; the caller closes it, which removes it from epoll.
    public func deregister(fd: Int32) {
        sources[Int(fd)] = nil
        generations[Int(fd)] &+= 1
    }

    /// Calls `body` for every open connection of this loop (shutdown, sweeps).
    public func forEachConnection(_ body: (Connection) -> Void) {
        for source in sources {
            if let connection = source as? Connection { body(connection) }
        }
    }

    func connectionOpened() { connectionCount += 1 }
    func connectionClosed() { connectionCount -= 1 }

    func schedule(_ connection: Connection, atMilliseconds deadline: UInt64) {
        timers.schedule(connection, atMilliseconds: deadline, nowMilliseconds: now)
        if !tickerArmed {
            tickerArmed = true
            ticker.setPeriod(milliseconds: Int(TimerWheel.tickMilliseconds))
        }
    }

    func cancelTimer(_ connection: Connection) {
        timers.cancel(connection)
    }

    /// The ticker runs only while deadlines exist, so an idle loop sleeps.
    private func disarmTickerIfIdle() {
        if tickerArmed && timers.count == 0 {
            tickerArmed = false
            ticker.setPeriod(milliseconds: 0)
        }
    }

    /// Runs `work` on this loop after `milliseconds`.
    public func after(milliseconds: UInt64, _ work: @escaping () -> Void) {
        scheduledWork.append((MonotonicClock.coarseMilliseconds() + milliseconds, work))
    }

    /// Runs the loop on the calling thread until `stop()`.
    public func run() {
        let events = EpollEvents(capacity: 512)
        while running.load(ordering: .acquiring) {
            var timeout = readAgain.isEmpty && laterInPass.isEmpty ? nextTimeout() : 0
            // A saturated loop gone idle wakes within a window to say so.
            if busy.saturated && (timeout < 0 || timeout > BusyWindow.windowMilliseconds) {
                timeout = BusyWindow.windowMilliseconds
            }
            let n: Int
            let waitedFrom = MonotonicClock.nanoseconds()
            do {
                n = try Epoll.wait(epfd, into: events, timeoutMilliseconds: timeout)
            } catch {
                fatalError("\(error)")
            }
            now = MonotonicClock.coarseMilliseconds()
            wokeAt = MonotonicClock.nanoseconds()
            if let saturation, let changed = busy.passed(sleptNanoseconds: wokeAt &- waitedFrom, now: wokeAt) {
                saturation.loopBecame(saturated: changed)
            }
            for i in 0..<n {
                let event = events[i]
                let data = event.data
                if data == Self.wakeupToken {
                    wakeup.drain()
                    continue
                }
                if data == Self.tickerToken {
                    ticker.drain()
                    fireTimers()
                    continue
                }
                let fd = Int(UInt32(truncatingIfNeeded: data))
                guard generations[fd] == UInt32(truncatingIfNeeded: data >> 32), let source = sources[fd] else {
                    continue
                }
                source.handleEvents(event.events)
            }
            runPostedTasks()
            retryReads()
            runLaterInPass()
            runScheduledWork()
        }
        // A stopped loop holds nothing back.
        if busy.saturated { saturation?.loopBecame(saturated: false) }
    }

    /// How long epoll_wait may sleep: until scheduled work is due, or until an
    /// event (the ticker drives the timer wheel).
    private func nextTimeout() -> Int32 {
        guard !scheduledWork.isEmpty else { return -1 }
        let clock = MonotonicClock.coarseMilliseconds()
        var nearest = UInt64.max
        for item in scheduledWork { nearest = min(nearest, item.deadline) }
        return nearest > clock ? Int32(clamping: nearest - clock) : 0
    }

    private func runPostedTasks() {
        tasks.drain(into: &taskBatch)
        guard !taskBatch.isEmpty else { return }
        holdsWrites = true
        for task in taskBatch { task() }
        holdsWrites = false
        taskBatch.removeAll(keepingCapacity: taskBatch.count <= 1024)
        if !heldConnections.isEmpty {
            for connection in heldConnections { connection.releaseHeldWrites() }
            heldConnections.removeAll(keepingCapacity: heldConnections.count <= 4096)
        }
        guard !afterWriteWork.isEmpty else { return }
        // Writes are no longer held here, so the work cannot queue more of itself meanwhile.
        for item in afterWriteWork { item() }
        afterWriteWork.removeAll(keepingCapacity: true)
    }

    /// Runs `work` on this loop once the writes made so far in this pass have
    /// been handed to their sockets: at once outside posted tasks (writes then
    /// go out as they are made), after the pass's held writes within them.
    /// Call it on the loop's thread only.
    public func afterWrites(_ work: @escaping () -> Void) {
        if holdsWrites { afterWriteWork.append(work) } else { work() }
    }

    /// Runs `work` later in this pass, after the posted tasks and the reads
    /// that used their budget, and polls rather than sleeps until it has run.
    func runLaterInPass(_ work: @escaping () -> Void) {
        laterInPass.append(work)
    }

    private func runLaterInPass() {
        guard !laterInPass.isEmpty else { return }
        // What this work schedules again waits for the next pass.
        swap(&laterInPass, &laterInPassBatch)
        for work in laterInPassBatch { work() }
        laterInPassBatch.removeAll(keepingCapacity: true)
    }

    private func retryReads() {
        guard !readAgain.isEmpty else { return }
        let batch = readAgain
        readAgain.removeAll(keepingCapacity: true)
        for connection in batch { connection.handleEvents(Epoll.readable) }
    }

    private func runScheduledWork() {
        guard !scheduledWork.isEmpty else { return }
        var due: [() -> Void] = []
        scheduledWork.removeAll { item in
            if item.deadline <= now {
                due.append(item.work)
                return true
            }
            return false
        }
        for work in due { work() }
    }

    private func fireTimers() {
        timers.advance(to: now, expired: &expired)
        if !expired.isEmpty {
            for connection in expired { connection.timerFired() }
            expired.removeAll(keepingCapacity: true)
        }
        disarmTickerIfIdle()
    }

    private static let wakeupToken = UInt64(UInt32.max)
    private static let tickerToken = UInt64(UInt32.max) - 1
}
