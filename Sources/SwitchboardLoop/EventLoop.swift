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
    /// The control plane's own epoll instance, nested in `epfd`: listeners and
    /// connections still speaking plain HTTP (`register(priority: true)`).
    /// Under overload a pass over the busy WebSockets takes seconds (they
    /// read what arrived during the last one, which took as long); this set is
    /// served every `priorityIntervalNanoseconds` within a pass, so a scrape,
    /// a health check or an admin's request is not answered seconds late.
    private let priorityEpfd: Int32
    private let priorityEvents = EpollEvents(capacity: 64)
    /// Per fd: registered in `priorityEpfd` rather than `epfd`.
    private var inPriority: [Bool]
    /// When the priority set is polled next within a long pass (monotonic nanoseconds).
    private var priorityDueAt: UInt64 = 0
    /// Work done since the clock was last read for `priorityDueAt`.
    private var sincePriorityCheck = 0
    private let wakeup: EventFD
    private let ticker: TimerFD
    private var tickerArmed = false
    private let tasks: LoopTaskQueue
    /// The control plane's posted work (`executeFirst`): run when the priority
    /// set is served, ahead of the ordinary queue.
    private let priorityTasks: LoopTaskQueue
    private var priorityTaskBatch: [LoopTaskQueue.Task] = []
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
        priorityEpfd = try Epoll.create()
        wakeup = try EventFD()
        ticker = try TimerFD()
        tasks = LoopTaskQueue(capacity: taskQueueCapacity)
        priorityTasks = LoopTaskQueue(capacity: Self.priorityTaskCapacity)
        sources = Array(repeating: nil, count: maxFileDescriptors + 16)
        generations = Array(repeating: 0, count: maxFileDescriptors + 16)
        inPriority = Array(repeating: false, count: maxFileDescriptors + 16)
        now = MonotonicClock.coarseMilliseconds()
        timers = TimerWheel(nowMilliseconds: now)
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        plaintextBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        cork.reserveCapacity(64 * 1024)
        try Epoll.add(epfd, fd: wakeup.fd, events: Epoll.readable | Epoll.edgeTriggered, data: Self.wakeupToken)
        try Epoll.add(epfd, fd: ticker.fd, events: Epoll.readable | Epoll.edgeTriggered, data: Self.tickerToken)
        // Level-triggered: readable for as long as the nested set has events left.
        try Epoll.add(epfd, fd: priorityEpfd, events: Epoll.readable, data: Self.priorityToken)
    }

    deinit {
        readBuffer.deallocate()
        plaintextBuffer.deallocate()
        wakeup.close()
        ticker.close()
        Posix.close(priorityEpfd)
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

    /// Runs `task` on the loop's thread ahead of the ordinary queue, within
    /// the current pass if it is a long one (the answer to a plain HTTP
    /// request, made on a reader thread). Returns false when its queue is full.
    @discardableResult
    public func executeFirst(_ task: @escaping @Sendable () -> Void) -> Bool {
        guard let wasEmpty = priorityTasks.push(task) else { return false }
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
    /// `priority`: in the control plane's set, served within long passes too
    /// (listeners, and connections until `leavePriority`).
    public func register(fd: Int32, source: EventSource, events: UInt32, priority: Bool = false) throws(SystemError) {
        precondition(Int(fd) < sources.count, "fd \(fd) beyond the loop's table; raise maxFileDescriptors")
        generations[Int(fd)] &+= 1
        sources[Int(fd)] = source
        do throws(SystemError) {
            try Epoll.add(priority ? priorityEpfd : epfd, fd: fd, events: events, data: eventData(fd))
        } catch {
            sources[Int(fd)] = nil
            throw error
        }
        inPriority[Int(fd)] = priority
    }

    /// Moves `fd` from the priority set to the ordinary one (a connection
    /// upgraded to WebSocket: its traffic is the bulk the set exists to pass).
    /// Added before it is removed, so no readiness is lost in between; if
    /// the move fails it stays a priority fd, which only serves it sooner.
    public func leavePriority(fd: Int32, events: UInt32) {
        guard inPriority[Int(fd)], sources[Int(fd)] != nil else { return }
        do throws(SystemError) {
            try Epoll.add(epfd, fd: fd, events: events, data: eventData(fd))
        } catch {
            return
        }
        Epoll.remove(priorityEpfd, fd: fd)
        inPriority[Int(fd)] = false
    }

    /// Forgets `fd`; the caller closes it, which removes it from epoll.
    public func deregister(fd: Int32) {
        sources[Int(fd)] = nil
        generations[Int(fd)] &+= 1
        inPriority[Int(fd)] = false
    }

    /// Whether `fd` is in the priority set (its writes are never held).
    func isInPrioritySet(_ fd: Int32) -> Bool { inPriority[Int(fd)] }

    private func eventData(_ fd: Int32) -> UInt64 {
        UInt64(generations[Int(fd)]) << 32 | UInt64(UInt32(fd))
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
            let waitedFrom = MonotonicClock.nanoseconds()
            let n = Self.wait(epfd, into: events, timeoutMilliseconds: timeout)
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
                    runPriorityTasks()
                    continue
                }
                if data == Self.tickerToken {
                    ticker.drain()
                    fireTimers()
                    continue
                }
                if data == Self.priorityToken {
                    servePriority()
                    continue
                }
                dispatch(event.events, data)
                servePriorityIfDue()
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

    /// An error here (EBADF, EINVAL) means the loop's own descriptors are
    /// broken and would fail every pass: stop the process.
    private static func wait(_ epfd: Int32, into events: EpollEvents, timeoutMilliseconds: Int32) -> Int {
        do {
            return try Epoll.wait(epfd, into: events, timeoutMilliseconds: timeoutMilliseconds)
        } catch {
            fatalError("\(error)")
        }
    }

    private func dispatch(_ events: UInt32, _ data: UInt64) {
        let fd = Int(UInt32(truncatingIfNeeded: data))
        guard generations[fd] == UInt32(truncatingIfNeeded: data >> 32), let source = sources[fd] else { return }
        source.handleEvents(events)
    }

    /// Serves the priority set if `priorityIntervalNanoseconds` have passed
    /// since it last was: called between units of a pass's work (an event, a
    /// posted task, a read retry); the clock is read every 4 of them.
    @inline(__always)
    private func servePriorityIfDue() {
        sincePriorityCheck &+= 1
        guard sincePriorityCheck & 3 == 0 else { return }
        if MonotonicClock.nanoseconds() >= priorityDueAt { servePriority() }
    }

    /// Handles what the priority set has ready, without waiting. Writes of
    /// priority connections are never held (`Connection.sendRaw`), so an
    /// answer made here goes out now even inside posted tasks.
    private func servePriority() {
        priorityDueAt = MonotonicClock.nanoseconds() + Self.priorityIntervalNanoseconds
        runPriorityTasks()
        let n = Self.wait(priorityEpfd, into: priorityEvents, timeoutMilliseconds: 0)
        for i in 0..<n {
            let event = priorityEvents[i]
            dispatch(event.events, event.data)
        }
    }

    private func runPriorityTasks() {
        priorityTasks.drain(into: &priorityTaskBatch)
        guard !priorityTaskBatch.isEmpty else { return }
        for task in priorityTaskBatch { task() }
        priorityTaskBatch.removeAll(keepingCapacity: true)
    }

    private func runPostedTasks() {
        tasks.drain(into: &taskBatch)
        guard !taskBatch.isEmpty else { return }
        holdsWrites = true
        for task in taskBatch {
            task()
            servePriorityIfDue()
        }
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
        for connection in batch {
            connection.handleEvents(Epoll.readable)
            servePriorityIfDue()
        }
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
    private static let priorityToken = UInt64(UInt32.max) - 2
    /// How long the control plane may wait within a pass: a pass of bulk
    /// traffic under overload took up to 4.8 s (docs/webhooks.md, "Yielding
    /// to a busy gateway").
    static let priorityIntervalNanoseconds: UInt64 = 5_000_000
    /// Answers to plain HTTP requests in flight at once: bounded by the
    /// readers' own queue long before this.
    static let priorityTaskCapacity = 4096
}
