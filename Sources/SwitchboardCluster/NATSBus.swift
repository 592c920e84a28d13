import SwitchboardChat
import SwitchboardNATS
import SwitchboardSystem
import Synchronization

/// `cluster.bus = "nats"`: NATS core publish/subscribe, subjects by session
/// and by workspace, so that a node receives only what its clients follow:
///
/// - `switchboard.s.<session>`: the session's committed messages, typing,
///   read and session changes, for the nodes with a client joined to it;
/// - `switchboard.w.<workspace>`: the state of every changed session of the
///   workspace, for the nodes with a console watching its inbox.
///
/// NATS core delivers at most once: a lost message shows as a seq gap that
/// the gateway reads from the database, and a subscription made after a
/// join's replay was read is followed, `resyncDelay` later, by a catch-up of
/// that session (what was committed in between reached nobody here).
///
/// `switchboard.nodes` carries presence: each node publishes its id there as
/// it connects and every `heartbeat` after. A node that has heard no other
/// for `peerTimeout` is alone and publishes nothing: nats-server would read
/// every publication only to drop it. Until its connection is a
/// `peerTimeout` old a node publishes regardless, since it cannot have heard
/// the others yet; they hear it from its first heartbeat.
public final class NATSBus: ClusterBus, @unchecked Sendable {
    public let name = "nats"
    static let resyncDelayMilliseconds: UInt64 = 200
    /// Publications over this size go as a hint to read the database instead.
    static let maxPayloadBytes = 512 * 1024
    public static let presenceSubject = "switchboard.nodes"

    private let client: NATSClient
    private let node: String
    private let encoder: Mutex<BusEncoder>
    private let interest = Mutex<Interest>(Interest())
    private let handlers = Mutex<BusHandlers?>(nil)
    private let stateValue = Atomic<UInt8>(2)
    private let generation = Atomic<UInt64>(0)
    public let dropped = Atomic<Int>(0)
    private let heartbeatMilliseconds: UInt64
    private let peerTimeoutMilliseconds: UInt64
    /// Coarse monotonic milliseconds; 0: never.
    private let peerHeardAt = Atomic<UInt64>(0)
    private let connectedAt = Atomic<UInt64>(0)
    private let nextHeartbeatAt = Atomic<UInt64>(0)

    private struct Interest {
        var sessions: [String: Int] = [:]
        var workspaces: [String: Int] = [:]
        /// Sessions subscribed recently, with when to catch them up.
        var resyncs: [(session: String, at: UInt64)] = []
    }

    public init(
        url: String, node: String, heartbeatMilliseconds: UInt64 = 1000, peerTimeoutMilliseconds: UInt64 = 3500
    ) throws(NATSError) {
        precondition(peerTimeoutMilliseconds > heartbeatMilliseconds, "a peer must be heard between timeouts")
        self.node = node
        self.heartbeatMilliseconds = heartbeatMilliseconds
        self.peerTimeoutMilliseconds = peerTimeoutMilliseconds
        encoder = Mutex(BusEncoder(node: node))
        let address = try NATSAddress(parsing: url)
        let box = WeakBus()
        // Without echo: this node subscribes to the sessions its clients
        // joined and publishes on the same subjects; its own notifications
        // would come back for it to decode and drop.
        client = NATSClient(
            address: address, name: node, echo: false,
            onMessage: { subject, payload in box.bus?.received(subject, payload) },
            onState: { state in box.bus?.changed(state) })
        box.bus = self
        client.subscribe(Self.presenceSubject)
    }

    public var state: BusState { [.connected, .catchingUp, .disconnected][Int(stateValue.load(ordering: .relaxed))] }

    private func set(_ state: BusState) {
        stateValue.store(state == .connected ? 0 : state == .catchingUp ? 1 : 2, ordering: .relaxed)
    }

    public func start(_ handlers: BusHandlers) {
        self.handlers.withLock { $0 = handlers }
        client.start()
    }

    public func stop() { client.stop() }

    public func caughtUp(generation: UInt64) {
        if generation == self.generation.load(ordering: .relaxed) && state == .catchingUp { set(.connected) }
    }

    // MARK: Publishing

    @discardableResult public func publish(_ event: BusEvent) -> Bool {
        guard !isAlone else { return false }
        switch event {
        case .committed(let messages, let sessions):
            // One publication per session (its subject) and one per changed session's workspace.
            var bySession: [String: [ChatMessage]] = [:]
            var order: [String] = []
            for message in messages {
                if bySession[message.sessionID] == nil { order.append(message.sessionID) }
                bySession[message.sessionID, default: []].append(message)
            }
            for sessionID in order {
                let own = bySession[sessionID] ?? []
                send(Self.sessionSubject(sessionID), .committed(messages: own, sessions: []), orHint: own)
            }
            for session in sessions {
                send(Self.workspaceSubject(session.workspaceID), .committed(messages: [], sessions: [session]))
            }
        case .sessionFrame(let sessionID, _):
            send(Self.sessionSubject(sessionID), event)
        case .sessionChanged(let session):
            // Subscribers get the frame, inboxes the state: a node with both hears each once.
            var frames = ServerFrameEncoder()
            let frame = frames.sessionUpdated(ref: nil, session)
            send(Self.sessionSubject(session.id), .sessionFrame(sessionID: session.id, payload: frame))
            send(Self.workspaceSubject(session.workspaceID), .committed(messages: [], sessions: [session]))
        case .ranges, .sessionStale:
            if let sessionID = event.sessionID { send(Self.sessionSubject(sessionID), event) }
        case .presence, .queue, .routingStale:
            // For the nodes that follow the workspace (a console's presence, a waiting visitor).
            if let workspaceID = event.routingWorkspaceID { send(Self.workspaceSubject(workspaceID), event) }
        }
        return true
    }

    /// Publications the client refused (its buffer full while disconnected).
    public var droppedEvents: Int { dropped.load(ordering: .relaxed) }

    private func send(_ subject: String, _ event: BusEvent, orHint messages: [ChatMessage] = []) {
        var payload = encoder.withLock { $0.encode(event) }
        if payload.count > Self.maxPayloadBytes, let first = messages.first, let last = messages.last {
            payload = encoder.withLock {
                $0.encode(
                    .ranges([
                        CommittedRange(
                            sessionID: first.sessionID, workspaceID: nil, firstSeq: first.seq, lastSeq: last.seq)
                    ]))
            }
        }
        if !client.publish(subject, payload) { dropped.add(1, ordering: .relaxed) }
    }

    /// Connected for a `peerTimeout` and no other node heard for as long.
    /// While disconnected publications are kept for the reconnect, as
    /// whoever is there by then may want them.
    public var isAlone: Bool {
        guard state != .disconnected else { return false }
        let now = MonotonicClock.coarseMilliseconds()
        let since = max(peerHeardAt.load(ordering: .relaxed), connectedAt.load(ordering: .relaxed))
        return now > since + peerTimeoutMilliseconds
    }

    /// This node's heartbeat: its id on the presence subject.
    private func announce() { client.publish(Self.presenceSubject, Array(node.utf8)) }

    static func sessionSubject(_ id: String) -> String { "switchboard.s." + id }
    static func workspaceSubject(_ id: String) -> String { "switchboard.w." + id }

    // MARK: Interest

    public func watch(session: String) {
        let first = interest.withLock { interest -> Bool in
            interest.sessions[session, default: 0] += 1
            guard interest.sessions[session] == 1 else { return false }
            interest.resyncs.append((session, MonotonicClock.coarseMilliseconds() + Self.resyncDelayMilliseconds))
            return true
        }
        if first { client.subscribe(Self.sessionSubject(session)) }
    }

    public func unwatch(session: String) {
        let last = interest.withLock { interest -> Bool in
            guard let count = interest.sessions[session] else { return false }
            interest.sessions[session] = count > 1 ? count - 1 : nil
            return count == 1
        }
        if last { client.unsubscribe(Self.sessionSubject(session)) }
    }

    public func watch(workspace: String) {
        let first = interest.withLock { interest -> Bool in
            interest.workspaces[workspace, default: 0] += 1
            return interest.workspaces[workspace] == 1
        }
        if first { client.subscribe(Self.workspaceSubject(workspace)) }
    }

    public func unwatch(workspace: String) {
        let last = interest.withLock { interest -> Bool in
            guard let count = interest.workspaces[workspace] else { return false }
            interest.workspaces[workspace] = count > 1 ? count - 1 : nil
            return count == 1
        }
        if last { client.unsubscribe(Self.workspaceSubject(workspace)) }
    }

    /// Says this node is there every `heartbeat`, and catches up the sessions
    /// subscribed `resyncDelay` ago.
    public func tick() {
        let now = MonotonicClock.coarseMilliseconds()
        if state != .disconnected && now >= nextHeartbeatAt.load(ordering: .relaxed) {
            nextHeartbeatAt.store(now + heartbeatMilliseconds, ordering: .relaxed)
            announce()
        }
        let due = interest.withLock { interest -> [String] in
            let due = interest.resyncs.filter { $0.at <= now }.map(\.session)
            interest.resyncs.removeAll { $0.at <= now }
            return due
        }
        guard !due.isEmpty, let handlers = handlers.withLock({ $0 }) else { return }
        let ranges = due.map { CommittedRange(sessionID: $0, workspaceID: nil, firstSeq: 1, lastSeq: .max) }
        handlers.received(BusNotification(node: node, sentAtMicroseconds: 0, event: .ranges(ranges)))
    }

    // MARK: The client's thread

    private func received(_ subject: String, _ payload: [UInt8]) {
        if subject == Self.presenceSubject {
            peerHeardAt.store(MonotonicClock.coarseMilliseconds(), ordering: .relaxed)
            return
        }
        guard let handlers = handlers.withLock({ $0 }),
            let decoded = try? BusDecoder.decode(payload), decoded.node != node
        else { return }
        handlers.received(decoded)
    }

    private func changed(_ connection: NATSConnectionState) {
        guard let handlers = handlers.withLock({ $0 }) else { return }
        switch connection {
        case .connected:
            let current = generation.add(1, ordering: .relaxed).newValue
            let now = MonotonicClock.coarseMilliseconds()
            connectedAt.store(now, ordering: .relaxed)
            nextHeartbeatAt.store(now + heartbeatMilliseconds, ordering: .relaxed)
            set(.catchingUp)
            announce()
            handlers.connected(current)
        case .disconnected:
            set(.disconnected)
            handlers.disconnected()
        case .connecting:
            set(.disconnected)
        }
    }
}

/// Lets the client's callbacks reach the bus that owns the client without a cycle.
private final class WeakBus: @unchecked Sendable {
    weak var bus: NATSBus?
}
