import Logging
import SwitchboardSystem

/// What other threads need of an event loop: a way in. The gateway's
/// `EventLoop` in production; tests run the queued tasks by hand.
package protocol LoopExecutor: AnyObject, Sendable {
    /// Queues `task` for the loop's thread; false when the queue is full.
    func execute(_ task: @escaping @Sendable () -> Void) -> Bool
    /// False once the loop has been told to stop: nothing queued will run.
    var isRunning: Bool { get }
    /// On the loop's own thread: runs `work` once the writes made so far have
    /// been handed to their sockets (`EventLoop.afterWrites`).
    func afterWrites(_ work: @escaping () -> Void)
    /// Queues `task` ahead of the ordinary queue (the control plane's
    /// answers: `EventLoop.executeFirst`); false when that queue is full.
    func executeFirst(_ task: @escaping @Sendable () -> Void) -> Bool
    /// On the loop's own thread: its clock, in milliseconds (where `after` counts from).
    var now: UInt64 { get }
    /// On the loop's own thread: runs `work` there once `milliseconds` have passed.
    func after(milliseconds: UInt64, _ work: @escaping () -> Void)
}

extension LoopExecutor {
    /// Executors without a queue of their own for it (tests' fakes) keep one order.
    package func executeFirst(_ task: @escaping @Sendable () -> Void) -> Bool { execute(task) }
}

/// The way onto one loop from another thread, with the two rules for a full
/// queue: database threads wait, loops never do.
package struct LoopHandoff: Sendable {
    package let index: Int
    package let loop: any LoopExecutor
    let logger: Logger

    package init(index: Int, loop: any LoopExecutor, logger: Logger) {
        self.index = index
        self.loop = loop
        self.logger = logger
    }

    /// From a database thread (the writer's results, a reader's answer):
    /// waits while the loop's queue is full, so nothing committed is dropped.
    /// A stalled loop so holds the writer back, whose full queue then answers
    /// `overloaded` to new sends. Gives up only on a stopped loop (shutdown).
    /// `first`: ahead of the ordinary queue (an HTTP answer: `executeFirst`).
    package func post(first: Bool = false, _ task: @escaping @Sendable () -> Void) {
        var waitedMilliseconds = 0
        while !(first ? loop.executeFirst(task) : loop.execute(task)) {
            guard loop.isRunning else { return }
            waitedMilliseconds += 1
            if waitedMilliseconds % 2000 == 0 {
                logger.warning("event loop \(index) has not drained its queue for \(waitedMilliseconds / 1000) s")
            }
            ThisProcess.sleep(milliseconds: 1)
        }
    }

    /// From another loop's thread (typing, read, session events): never
    /// waits, since one loop must not stall behind another. A full queue
    /// loses this event, which is logged.
    func offer(_ task: @escaping @Sendable () -> Void) {
        if !loop.execute(task) {
            logger.warning("event loop \(index) queue full: a typing, read or session event was dropped")
        }
    }
}
