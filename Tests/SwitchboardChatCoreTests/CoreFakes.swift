import Foundation
import SwitchboardReaders
import Synchronization

@testable import SwitchboardChatCore

/// A loop whose queued tasks run when the test says so. Bounded like the real one.
final class ManualLoop: LoopExecutor, @unchecked Sendable {
    private let lock = NSLock()
    private var tasks: [@Sendable () -> Void] = []
    private let capacity: Int
    private var stopped = false

    init(capacity: Int = 1024) {
        self.capacity = capacity
    }

    func execute(_ task: @escaping @Sendable () -> Void) -> Bool {
        lock.withLock {
            guard tasks.count < capacity else { return false }
            tasks.append(task)
            return true
        }
    }

    var isRunning: Bool { lock.withLock { !stopped } }

    /// Writes to fake peers are made at once, so what waits for them runs at once.
    func afterWrites(_ work: @escaping () -> Void) { work() }
    var queued: Int { lock.withLock { tasks.count } }

    func stop() { lock.withLock { stopped = true } }

    /// Runs what is queued now (tasks they queue wait for the next call); returns how many ran.
    @discardableResult
    func run() -> Int {
        let batch = lock.withLock {
            defer { tasks = [] }
            return tasks
        }
        for task in batch { task() }
        return batch.count
    }

    /// The loop's clock: it moves only in `fireTimers` and `advance`.
    private(set) var now: UInt64 = 1_000
    private var timers: [(due: UInt64, work: () -> Void)] = []
    /// How long each `after` asked to wait, in the order asked.
    private(set) var timerDelays: [UInt64] = []

    func after(milliseconds: UInt64, _ work: @escaping () -> Void) {
        timerDelays.append(milliseconds)
        timers.append((now + milliseconds, work))
    }

    /// Moves the clock on without firing timers (time spent elsewhere).
    func advance(by milliseconds: UInt64) { now += milliseconds }

    /// Moves the clock to the earliest timer and runs every timer due then;
    /// returns how many ran.
    @discardableResult
    func fireTimers() -> Int {
        guard let due = timers.map(\.due).min() else { return 0 }
        now = max(now, due)
        let fired = timers.filter { $0.due <= now }
        timers.removeAll { $0.due <= now }
        for timer in fired { timer.work() }
        return fired.count
    }
}

/// Readers that run their queries only when the test says so, then hand
/// each answer to the asking core's loop, as the reader pool does.
final class ManualReader: SessionReader, @unchecked Sendable {
    private let database: MemoryDatabase
    private let loop: ManualLoop
    private var jobs: [() -> @Sendable () -> Void] = []
    private var answers: [@Sendable () -> Void] = []
    /// When false, `read` refuses as a full reader queue does.
    var accepting = true

    init(database: MemoryDatabase, loop: ManualLoop) {
        self.database = database
        self.loop = loop
    }

    func read<T: Sendable>(
        _ query: @escaping @Sendable (any SessionQueries) throws(QueryError) -> T,
        then finish: @escaping @Sendable (Result<T, QueryError>) -> Void
    ) -> Bool {
        guard accepting else { return false }
        let database = self.database
        jobs.append {
            let result = Result { () throws(QueryError) in try query(database) }
            return { finish(result) }
        }
        return true
    }

    /// Runs every waiting query and posts its answer to the loop (or, with
    /// `postAnswers` false, keeps it for `postAnswers()`); returns how many
    /// ran or were posted.
    @discardableResult
    func runQueries(postAnswers: Bool = true) -> Int {
        let batch = jobs
        jobs = []
        for job in batch { answers.append(job()) }
        return batch.count + (postAnswers ? self.postAnswers() : 0)
    }

    /// Posts the answers of queries already run, in order, as many as the
    /// loop's queue takes: the rest wait for room, as the reader pool's
    /// threads do (`LoopHandoff.post`). Returns how many were posted.
    @discardableResult
    func postAnswers() -> Int {
        var posted = 0
        while posted < answers.count, loop.execute(answers[posted]) { posted += 1 }
        answers.removeFirst(posted)
        return posted
    }
}

/// A client connection that records what the core writes to it.
final class RecordingPeer: ChatPeer {
    private(set) var frames: [[String: Any]] = []
    private(set) var closedWith: (code: UInt16, reason: String)?
    /// Writes that went out inside one `batchWrites`, per call.
    private(set) var batches: [Int] = []
    private var batching: Int?

    func send(_ frame: SharedFrame) { record(frame.payload) }
    func sendText(_ payload: [UInt8]) { record(payload) }

    func batchWrites(_ body: () -> Void) {
        batching = 0
        body()
        batches.append(batching ?? 0)
        batching = nil
    }

    func close(code: UInt16, reason: String) {
        if closedWith == nil { closedWith = (code, reason) }
    }

    private func record(_ payload: [UInt8]) {
        guard closedWith == nil else { return }
        batching? += 1
        let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any]
        frames.append(object ?? ["unparsed": String(decoding: payload, as: UTF8.self)])
    }

    /// Takes the frames received so far.
    func take() -> [[String: Any]] {
        defer { frames = [] }
        return frames
    }
}

/// A one-way switch another thread can throw.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}

/// Wall-clock seconds that a test sets (tokens expire by it).
final class TestWallClock: @unchecked Sendable {
    var seconds: Int64 = 1_800_000_000
}
