import SwitchboardPostgres
import SwitchboardSystem
import Synchronization

/// `cluster.bus = "postgres"`: LISTEN on one channel, on a connection and a
/// thread of its own (never an event loop's), and NOTIFY there what this
/// node's clients did: each committed batch (after its commit, so only
/// committed rows, and in the order the writer committed them), typing,
/// read and session changes. The notifying transactions are this
/// connection's own, with synchronous_commit off: a NOTIFY inside the
/// writer's transaction would hold PostgreSQL's notification lock through
/// the writer's commit and so serialize every writer's commits, and
/// notifications are hints that need no flush (docs/cluster.md, "Why not
/// NOTIFY in the writer's transaction"). A batch goes as one notification
/// with its messages when it fits PostgreSQL's 8,000 bytes, else as its
/// sessions' seq ranges, which the listeners read. Reconnects with back-off; after each
/// connection the gateway catches up from the database before the bus counts
/// as connected again.
///
/// Threading: `run` and `serve` belong to the bus thread; the outbox and the
/// state are shared with publishers through a mutex and atomics.
public final class PostgresBus: ClusterBus, @unchecked Sendable {
    /// PostgreSQL refuses payloads of 8,000 bytes or more.
    static let maxPayloadBytes = 7999
    /// Events waiting to be sent; more are dropped (counted): they are hints,
    /// what they hint at is in the database, and every node sweeps its
    /// sessions for what a lost hint hid (`ClusterLink`).
    static let outboxCapacity = 65_536
    /// Notifications per statement: one round trip for a burst of typing.
    static let notificationsPerStatement = 64
    /// How often the other nodes are counted (a node that starts listening is
    /// told of commits within this; its sweep finds what came before).
    static let peerCountMilliseconds: Int32 = 1000
    static let peerCountNanoseconds = UInt64(peerCountMilliseconds) * 1_000_000

    public let name = "postgres"
    private let databaseURL: String
    private let channel: String
    private let node: String
    private let wakeup: EventFD
    private let outbox = Mutex<[BusEvent]>([])
    /// Used on the bus thread only.
    private var encoder: BusEncoder
    private let stateValue = Atomic<UInt8>(2)
    private let generation = Atomic<UInt64>(0)
    private let stopping = Atomic<Bool>(false)
    private let thread = Mutex<NamedThread?>(nil)
    /// Events dropped because the outbox was full or they could not be sent.
    public let dropped = Atomic<Int>(0)
    /// Notifications sent.
    public let sent = Atomic<Int>(0)
    /// Other nodes listening on this database, as last counted (every
    /// `keepAlive`): with none, there is nobody to tell, and a node that
    /// starts catches up from the database as it connects.
    private let peers = Atomic<Int>(0)
    /// Counts the buses listening here, this one included.
    static let peerQuery = """
        SELECT count(*) FROM pg_stat_activity
         WHERE application_name = 'switchboard-bus' AND datname = current_database()
        """

    public init(databaseURL: String, channel: String, node: String) throws(SystemError) {
        self.databaseURL = databaseURL
        self.channel = channel
        self.node = node
        wakeup = try EventFD()
        encoder = BusEncoder(node: node)
    }

    deinit { wakeup.close() }

    public var state: BusState { [.connected, .catchingUp, .disconnected][Int(stateValue.load(ordering: .relaxed))] }

    private func set(_ state: BusState) {
        stateValue.store(state == .connected ? 0 : state == .catchingUp ? 1 : 2, ordering: .relaxed)
    }

    public func start(_ handlers: BusHandlers) {
        thread.withLock { $0 = NamedThread.spawn(name: "switchboard-bus") { self.run(handlers) } }
    }

    public func stop() {
        stopping.store(true, ordering: .relaxed)
        wakeup.signal()
        thread.withLock { thread in
            thread?.join()
            thread = nil
        }
    }

    @discardableResult public func publish(_ event: BusEvent) -> Bool {
        guard peers.load(ordering: .relaxed) > 0 else { return false }
        let queued = outbox.withLock { outbox -> Bool in
            guard outbox.count < Self.outboxCapacity else { return false }
            outbox.append(event)
            return true
        }
        if queued { wakeup.signal() } else { dropped.add(1, ordering: .relaxed) }
        return queued
    }

    public var droppedEvents: Int { dropped.load(ordering: .relaxed) }

    public func caughtUp(generation: UInt64) {
        if generation == self.generation.load(ordering: .relaxed) && state == .catchingUp { set(.connected) }
    }

    public func watch(session: String) {}
    public func unwatch(session: String) {}
    public func watch(workspace: String) {}
    public func unwatch(workspace: String) {}

    // MARK: The bus thread

    private func run(_ handlers: BusHandlers) {
        var backoff = 50
        while !stopping.load(ordering: .relaxed) {
            guard let connection = connect() else {
                pause(milliseconds: backoff)
                backoff = min(backoff * 2, 2000)
                continue
            }
            backoff = 50
            try? countPeers(on: connection)
            let current = generation.add(1, ordering: .relaxed).newValue
            set(.catchingUp)
            handlers.connected(current)
            serve(connection, handlers)
            set(.disconnected)
            if !stopping.load(ordering: .relaxed) { handlers.disconnected() }
        }
    }

    private func connect() -> PostgresConnection? {
        do {
            let connection = try PostgresConnection(databaseURL)
            try connection.execute(
                "SET application_name = 'switchboard-bus'; SET synchronous_commit = off; LISTEN \"\(channel)\"")
            return connection
        } catch {
            return nil
        }
    }

    /// Until the connection is lost or the bus stops.
    private func serve(_ connection: PostgresConnection, _ handlers: BusHandlers) {
        var fds = PollSet([wakeup.fd, connection.socket])
        var nextCount = MonotonicClock.nanoseconds() + Self.peerCountNanoseconds
        do {
            while !stopping.load(ordering: .relaxed) {
                try send(on: connection)
                deliver(connection.notifications(), from: connection.backendPID, handlers)
                let ready = try fds.wait(timeoutMilliseconds: Self.peerCountMilliseconds)
                if MonotonicClock.nanoseconds() >= nextCount {
                    // Also makes sure the server is still there.
                    try countPeers(on: connection)
                    nextCount = MonotonicClock.nanoseconds() + Self.peerCountNanoseconds
                }
                if ready == 0 { continue }
                if fds.ready(0).contains(.readable) { wakeup.drain() }
                if !fds.ready(1).isDisjoint(with: [.readable, .failed]) { try connection.consumeInput() }
            }
        } catch {
            return
        }
    }

    /// The other nodes' notifications. PostgreSQL also hands a listening
    /// session its own (this connection sends every NOTIFY of this node):
    /// those are skipped by the sending backend before anything is decoded.
    private func deliver(_ notifications: [PostgresNotification], from ownPID: Int32, _ handlers: BusHandlers) {
        for notification in notifications where notification.channel == channel && notification.senderPID != ownPID {
            guard let decoded = try? BusDecoder.decode(notification.payload), decoded.node != node else { continue }
            handlers.received(decoded)
        }
    }

    /// Sends what the outbox holds, a statement per `notificationsPerStatement`
    /// notifications. The statement for each count of notifications is
    /// prepared on the connection on first use: when batches are small and
    /// frequent, parsing and planning `SELECT pg_notify(...)` anew was a large
    /// part of what notifying cost the database (docs/cluster.md, "What
    /// notifying costs the database").
    private func send(on connection: PostgresConnection) throws(PostgresError) {
        let events = outbox.withLock { outbox in
            defer { outbox.removeAll(keepingCapacity: true) }
            return outbox
        }
        guard !events.isEmpty else { return }
        var payloads: [[UInt8]] = []
        for event in events { payloads.append(contentsOf: encode(event)) }
        var start = 0
        while start < payloads.count {
            let chunk = payloads[start..<min(start + Self.notificationsPerStatement, payloads.count)]
            let parameters: [String?] = [channel] + chunk.map { String(decoding: $0, as: UTF8.self) }
            let name = "switchboard_notify_\(chunk.count)"
            do {
                try connection.query(
                    prepared: name,
                    from: "SELECT " + (0..<chunk.count).map { "pg_notify($1, $\($0 + 2))" }.joined(separator: ", "),
                    parameters)
                sent.add(chunk.count, ordering: .relaxed)
            } catch  where error.kind == .connection {
                dropped.add(payloads.count - start, ordering: .relaxed)
                throw error
            } catch {
                dropped.add(chunk.count, ordering: .relaxed)
            }
            start += chunk.count
        }
    }

    /// The notifications for one event, each under PostgreSQL's payload limit.
    private func encode(_ event: BusEvent) -> [[UInt8]] {
        switch event {
        case .committed(let messages, let sessions):
            return encoder.encodeCommitted(messages, sessions: sessions, maxBytes: Self.maxPayloadBytes)
        case .sessionChanged(let session):
            let payload = encoder.encode(event)
            // A session state too big to carry (a long last message): the others read it.
            return [
                payload.count <= Self.maxPayloadBytes
                    ? payload : encoder.encode(.sessionStale(sessionID: session.id, workspaceID: session.workspaceID))
            ]
        case .presence, .queue:
            let payload = encoder.encode(event)
            // A large team or a long queue: the nodes that follow the workspace read it.
            guard payload.count > Self.maxPayloadBytes, let workspaceID = event.routingWorkspaceID else {
                return [payload]
            }
            return [encoder.encode(.routingStale(workspaceID: workspaceID))]
        case .sessionFrame, .ranges, .sessionStale, .routingStale:
            let payload = encoder.encode(event)
            guard payload.count <= Self.maxPayloadBytes else {
                dropped.add(1, ordering: .relaxed)
                return []
            }
            return [payload]
        }
    }

    private func countPeers(on connection: PostgresConnection) throws(PostgresError) {
        let count = try connection.query(Self.peerQuery).int(0, 0) ?? 1
        peers.store(max(0, count - 1), ordering: .relaxed)
    }

    /// The other nodes listening on this database, as last counted.
    public var peerCount: Int { peers.load(ordering: .relaxed) }

    /// Sleeps for the back-off, waking early when the bus stops.
    private func pause(milliseconds: Int) {
        var fds = PollSet([wakeup.fd])
        let deadline = MonotonicClock.nanoseconds() + UInt64(milliseconds) * 1_000_000
        while !stopping.load(ordering: .relaxed) {
            let now = MonotonicClock.nanoseconds()
            if now >= deadline { return }
            _ = try? fds.wait(timeoutMilliseconds: Int32((deadline - now + 999_999) / 1_000_000))
            wakeup.drain()
        }
    }
}
