import SwitchboardSystem
import SwitchboardWebhooks
import Synchronization

/// Host names resolved off the dispatcher thread: getaddrinfo blocks (for
/// seconds, with a slow DNS server), and a dispatcher thread has other
/// requests to move along meanwhile. A few lookup threads per client, started
/// as lookups come and ending when the client goes; a finished lookup is
/// collected by `finished` after `signal` became readable.
final class HostLookups {
    typealias Outcome = (id: Int, result: Result<[TargetAddress], TargetCheckError>)

    /// What the client and its lookup threads share.
    private final class Shared: Sendable {
        let jobs = Mutex<(queue: [(id: Int, host: String)], stopping: Bool)>(([], false))
        let done = Mutex<[Outcome]>([])
        let ready = Semaphore()
        let signal: EventFD

        init(signal: EventFD) { self.signal = signal }

        deinit { signal.close() }
    }

    /// Lookups of one client under way at once, at most; more wait their turn.
    static let maximumThreads = 4

    private let shared: Shared
    private var threads = 0
    private var nextID = 0

    /// Readable when a lookup has finished.
    var signal: EventFD { shared.signal }

    init() throws(SystemError) {
        shared = Shared(signal: try EventFD())
    }

    deinit {
        shared.jobs.withLock { $0.stopping = true }
        for _ in 0..<threads { shared.ready.post() }
    }

    /// Starts resolving `host`; its outcome comes back from `finished` under the id returned.
    func resolve(_ host: String) -> Int {
        nextID += 1
        let id = nextID
        shared.jobs.withLock { $0.queue.append((id, host)) }
        if threads < Self.maximumThreads {
            threads += 1
            let shared = self.shared
            NamedThread.spawn(name: "webhook-dns") { Self.serve(shared) }.detach()
        }
        shared.ready.post()
        return id
    }

    /// The lookups finished since the last call.
    func finished() -> [Outcome] {
        shared.signal.drain()
        return shared.done.withLock { done in
            defer { done.removeAll() }
            return done
        }
    }

    private static func serve(_ shared: Shared) {
        while true {
            shared.ready.wait()
            guard
                let job = shared.jobs.withLock({ jobs in
                    jobs.stopping || jobs.queue.isEmpty ? nil : jobs.queue.removeFirst()
                })
            else {
                if shared.jobs.withLock({ $0.stopping }) { return }
                continue
            }
            let result = Result { () throws(TargetCheckError) in try TargetResolver.resolve(job.host) }
            shared.done.withLock { $0.append((job.id, result)) }
            shared.signal.signal()
        }
    }
}
