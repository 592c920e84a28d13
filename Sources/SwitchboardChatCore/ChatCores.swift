import Logging
import Synchronization

/// Every loop's chat core, and the ways between them and the other threads.
/// Cores never share state: what one core tells the others, and what the
/// writer and readers tell the cores, travels as tasks on the loops' queues.
///
/// Threading: `attach` runs once before any loop thread starts; after that
/// `cores` is only read.
package final class ChatCores: @unchecked Sendable {
    package private(set) var cores: [ChatCore] = []
    private var handoffs: [LoopHandoff] = []
    private let connectionSerial = Atomic<UInt64>(0)
    /// The other gateway nodes (nil: this one alone). Set before `attach`.
    package var cluster: (any ClusterOutlet)?
    /// Routing (nil: none), told of operators coming and going and of
    /// session changes. Set before `attach`; weak, since routing holds the
    /// cores to announce what it assigns.
    package weak var routing: (any RoutingTriggers)?

    package init() {}

    /// Binds one core per loop, in loop order; `makeCore` gets the loop's index and handoff.
    package func attach(_ handoffs: [LoopHandoff], makeCore: (Int, LoopHandoff) -> ChatCore) {
        self.handoffs = handoffs
        cores = handoffs.enumerated().map { makeCore($0.offset, $0.element) }
    }

    package func core(forLoop index: Int) -> ChatCore { cores[index] }

    /// The way onto loop `index` from other threads (a reader's answer to an HTTP request).
    package func handoff(forLoop index: Int) -> LoopHandoff { handoffs[index] }

    /// A connection id unique in the process (`welcome.conn_id`, exclusions across loops).
    func nextConnectionID() -> UInt64 { connectionSerial.add(1, ordering: .relaxed).newValue }

    /// From a database thread: `work` for every core on its own loop. A full
    /// queue is waited out (`LoopHandoff.post`), so nothing committed is lost.
    package func everyCore(fromDatabaseThread work: @escaping @Sendable (ChatCore) -> Void) {
        for (core, handoff) in zip(cores, handoffs) { handoff.post { work(core) } }
    }

    /// From the loop of core `origin`: `work` for that core now, and for the
    /// others on their loops; never waits (`LoopHandoff.offer`).
    package func everyCore(from origin: Int, _ work: @escaping @Sendable (ChatCore) -> Void) {
        for (index, (core, handoff)) in zip(cores, handoffs).enumerated() {
            if index == origin { work(core) } else { handoff.offer { work(core) } }
        }
    }
}
