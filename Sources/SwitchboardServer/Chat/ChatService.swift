import Logging
import SwitchboardAuth
import SwitchboardChat
import SwitchboardLoop
import SwitchboardMetrics
import SwitchboardReaders
import SwitchboardWriter
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The chat protocol's shared machinery: token checks, the reader pool, the
/// batched writer and one hub per event loop. The writer's results come back
/// here, on its threads, and are handed to the loops in one task per batch.
///
/// Threading: `attach` runs once on the main thread before any loop or writer
/// thread starts; after that `loops` and `hubs` are only read, and everything
/// else is either immutable or synchronized.
final class ChatService: @unchecked Sendable {
    let settings: ChatSettings
    let verifier: TokenVerifier
    let readers: ReaderPool
    let directory = SessionDirectory()
    let logger: Logger
    let metrics: GatewayMetrics
    private(set) var writer: BatchWriter!
    private(set) var loops: [EventLoop] = []
    private(set) var hubs: [ChatHub] = []
    private let counters = ChatCounters()

    init(configuration: Configuration, logger: Logger, metrics: GatewayMetrics) {
        self.metrics = metrics
        settings = ChatSettings(configuration)
        verifier = TokenVerifier(secret: configuration.jwtSecret, clockSkewSeconds: settings.clockSkewSeconds)
        readers = ReaderPool(
            databaseURL: configuration.databaseURL, threads: configuration.readerThreads,
            queueCapacity: configuration.readerQueueCapacity)
        self.logger = logger
        let writerConfiguration = WriterConfiguration(
            databaseURL: configuration.databaseURL, maxBatchMessages: configuration.writerMaxBatchMessages,
            maxBatchDelayMilliseconds: configuration.writerMaxBatchDelayMilliseconds,
            queueCapacity: configuration.writerQueueCapacity, connections: configuration.writerConnections)
        writer = BatchWriter(configuration: writerConfiguration) { [unowned self] batch in self.committed(batch) }
    }

    /// Binds one hub to each loop and starts the database threads.
    func attach(loops: [EventLoop]) {
        self.loops = loops
        hubs = loops.map { ChatHub(service: self, loop: $0) }
        // Read at scrape time from the writer's own counters.
        metrics.setPullSource(for: metrics.writerQueueDepth) { [unowned self] in
            let statistics = writer.statistics
            let seen = counters.writerReconnects.exchange(statistics.reconnects, ordering: .relaxed)
            if statistics.reconnects > seen {
                metrics.databaseReconnects(.writer).increment(by: statistics.reconnects - seen)
            }
            return Double(statistics.queueDepth)
        }
        readers.start()
        writer.start()
    }

    /// Stops the database threads once the loops are done with them.
    func stop() {
        writer.stop()
        readers.stop()
    }

    func nextConnectionSerial() -> UInt64 { counters.nextSerial() }

    var hasInboxSubscribers: Bool { counters.inboxSubscribers.load(ordering: .relaxed) > 0 }
    func inboxSubscribed() { counters.inboxSubscribers.add(1, ordering: .relaxed) }
    func inboxUnsubscribed() { counters.inboxSubscribers.subtract(1, ordering: .relaxed) }

    // MARK: Handing work to loops

    /// Posts `task` to a loop from a database thread. A full loop queue is
    /// waited out (the writer and readers may pause; the loops never do); only
    /// a loop that has stopped draining for two seconds loses the task, and
    /// that is logged.
    func post(toLoop index: Int, _ task: @escaping @Sendable () -> Void) {
        let loop = loops[index]
        var waited = 0
        while !loop.execute(task) {
            if waited >= 2000 {
                logger.error("event loop \(index) has not drained its queue for 2 s: a delivery was dropped")
                return
            }
            usleep(1000)
            waited += 1
        }
    }

    /// Sends frames to the subscribers on every loop. From a loop thread, the
    /// other loops get theirs through their queues; those never wait.
    func broadcast(_ delivery: LoopDelivery, fromLoop origin: Int?) {
        guard !delivery.isEmpty else { return }
        for (index, hub) in hubs.enumerated() {
            if index == origin {
                hub.deliver(results: [], delivery)
            } else if origin == nil {
                post(toLoop: index) { hub.deliver(results: [], delivery) }
            } else if !loops[index].execute({ hub.deliver(results: [], delivery) }) {
                logger.warning("event loop \(index) queue full: a typing or session event was dropped")
            }
        }
    }

    // MARK: Writer results

    /// Runs on a writer thread once per committed batch: encodes each new
    /// message once, and gives every loop its acks and the shared frames.
    private func committed(_ batch: WriterBatchResult) {
        var results = [[WriteResult]](repeating: [], count: hubs.count)
        var delivery = LoopDelivery()
        var encoder = ServerFrameEncoder()
        var announced: [ChatMessage] = []
        let announce = hasInboxSubscribers
        if let latency = batch.commitLatencyMicroseconds {
            metrics.batchSize.observe(batch.results.count)
            metrics.commitLatency.observe(Double(latency) / 1_000_000)
        }
        var stored = 0
        var duplicates = 0
        var failures = 0
        for result in batch.results {
            if result.origin >= 0 && result.origin < results.count { results[result.origin].append(result) }
            switch result.outcome {
            case .stored: stored += 1
            case .duplicate: duplicates += 1
            case .unavailable, .failed: failures += 1
            case .noSession: break
            }
            guard case .stored(let row) = result.outcome else { continue }
            let message = ChatMessage(row)
            delivery.sessionFrames.append(
                SessionFrame(
                    sessionID: message.sessionID, seq: message.seq, excludedConnection: nil,
                    frame: SharedFrame(payload: encoder.message(message))))
            if announce { announced.append(message) }
        }
        // Counted before anyone is answered: a client holding its ack finds
        // the message in /metrics.
        metrics.messagesStored.increment(by: stored)
        metrics.messagesDuplicate.increment(by: duplicates)
        if failures > 0 { metrics.databaseErrors(.writer).increment(by: failures) }
        let (updated, unknown) = announced.isEmpty ? ([], []) : directory.apply(announced)
        for session in updated {
            delivery.workspaceFrames.append(
                WorkspaceFrame(
                    workspaceID: session.workspaceID, excludedConnection: nil,
                    frame: SharedFrame(payload: encoder.sessionUpdated(ref: nil, session))))
        }
        let shared = delivery
        for (index, hub) in hubs.enumerated() where !results[index].isEmpty || !shared.isEmpty {
            let mine = results[index]
            post(toLoop: index) { hub.deliver(results: mine, shared) }
        }
        for sessionID in unknown { announceFromDatabase(sessionID) }
    }

    /// A message for a session this node has not seen lately: read its
    /// summary, then tell the inbox.
    private func announceFromDatabase(_ sessionID: String) {
        _ = readers.submit { [self] queries in
            guard let session = try? queries.session(id: sessionID) else { return }
            directory.remember(session)
            announce(session, excluding: nil)
        }
    }

    /// `session.updated` for the session's workspace inbox and everyone joined
    /// to it; `excluding` already got it as the reply to its own request.
    func announce(_ session: SessionInfo, excluding serial: UInt64?, fromLoop origin: Int? = nil) {
        var encoder = ServerFrameEncoder()
        let frame = SharedFrame(payload: encoder.sessionUpdated(ref: nil, session))
        var delivery = LoopDelivery()
        delivery.workspaceFrames.append(
            WorkspaceFrame(workspaceID: session.workspaceID, excludedConnection: serial, frame: frame))
        delivery.sessionFrames.append(
            SessionFrame(sessionID: session.id, seq: nil, excludedConnection: serial, frame: frame))
        broadcast(delivery, fromLoop: origin)
    }
}

/// Process-wide counters the loops share.
private final class ChatCounters: Sendable {
    let serial = Atomic<UInt64>(0)
    let inboxSubscribers = Atomic<Int>(0)
    let writerReconnects = Atomic<Int>(0)

    func nextSerial() -> UInt64 { serial.add(1, ordering: .relaxed).newValue }
}

extension ChatMessage {
    /// A row as the writer returned it (its timestamp already in RFC 3339).
    init(_ stored: StoredMessage) {
        self.init(
            id: stored.id, sessionID: stored.sessionID, seq: stored.seq, clientMessageID: stored.clientMessageID,
            kind: stored.kind, body: stored.body,
            sender: Participant(id: stored.senderID, role: stored.senderRole, name: stored.senderName),
            createdAt: stored.createdAt)
    }
}
