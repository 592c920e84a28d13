import SwitchboardSystem

/// One simulated widget (visitor) or console (operator): a connection, the
/// session it is in, and what it has seen of that session.
final class Participant: WebSocketClientDelegate {
    enum Role { case visitor, `operator` }
    enum Stage: Equatable { case disconnected, connecting, settingUp, ready, failed }

    let index: Int
    let role: Role
    let token: String
    /// Index into the shard's sessions.
    let session: Int
    /// Index into the shard's nodes: every connection of this participant,
    /// reconnects included, goes there (`NodeSpread`).
    let node: Int
    unowned(unsafe) let shard: Shard
    private(set) var client: WebSocketClient?
    private(set) var stage = Stage.disconnected
    var tracker = SequenceTracker()
    private var connectStartedAt: UInt64 = 0
    private var sendCounter = 0

    init(index: Int, role: Role, token: String, session: Int, node: Int, shard: Shard) {
        self.index = index
        self.role = role
        self.token = token
        self.session = session
        self.node = node
        self.shard = shard
    }

    var isReady: Bool { stage == .ready }

    func connect(loop: ClientLoop) {
        let client = WebSocketClient(delegate: self)
        self.client = client
        stage = .connecting
        connectStartedAt = MonotonicClock.nanoseconds()
        do {
            try loop.connect(client, to: shard.nodes[node])
        } catch {
            self.client = nil
            stage = .failed
            shard.setupFailed("connect: \(error)")
        }
    }

    /// Drops the connection without a close frame (a lost network).
    func dropConnection() {
        let client = self.client
        self.client = nil
        stage = .disconnected
        client?.abort()
    }

    func close() {
        let client = self.client
        self.client = nil
        stage = .disconnected
        client?.close()
    }

    func send(scheduled: UInt64) -> Bool {
        guard stage == .ready, let client else { return false }
        sendCounter += 1
        shard.sendScratch.removeAll(keepingCapacity: true)
        ClientFrames.appendSend(
            to: &shard.sendScratch, scheduled: scheduled, sessionID: shard.sessions[session].idBytes,
            messageID: ClientFrames.messageID(sender: index, counter: sendCounter), bodyBytes: shard.bodyBytes)
        shard.sendScratch.withUnsafeBytes { client.sendText($0) }
        return true
    }

    // MARK: WebSocketClientDelegate

    func opened(_ client: WebSocketClient) {
        client.sendText(ClientFrames.hello(token: token))
    }

    func received(_ text: UnsafeRawBufferPointer, on client: WebSocketClient) {
        guard let frame = ServerFrame.read(text) else {
            shard.protocolViolation("a frame that is not a JSON object")
            return
        }
        switch frame.kind {
        case .message:
            // Without a valid seq the tracker would count it as a duplicate.
            guard frame.seq >= 1 else { return shard.protocolViolation("a message without a valid seq") }
            shard.delivered(to: self, seq: frame.seq, bytes: text, body: frame.body, at: client.lastReadAt)
        case .ack:
            shard.acked(by: self, frame: frame, bytes: text, at: client.lastReadAt)
        case .welcome:
            shard.handshakeDone(after: MonotonicClock.nanoseconds() &- connectStartedAt)
            stage = .settingUp
            let sessionID = shard.sessions[session].id
            if role == .visitor && sessionID.isEmpty {
                client.sendText(ClientFrames.createSession(title: "load \(index)"))
            } else {
                client.sendText(ClientFrames.join(sessionID: sessionID, since: tracker.highest))
            }
        case .session:
            guard let object = frame.session, let id = ServerFrame.nestedID(text, object) else {
                shard.protocolViolation("a session frame without session.id")
                return
            }
            shard.sessions[session].assign(id: Array(text[id]))
            tracker = SequenceTracker(after: 0)
            becomeReady()
        case .joined:
            if frame.truncated { shard.note("a join replay was truncated at the gateway's replay_limit") }
            becomeReady()
        case .error:
            let code = frame.code.map { String(decoding: text[$0], as: UTF8.self) } ?? "unknown"
            if let ref = frame.ref, ClientFrames.stampedInstant(text, ref, prefix: UInt8(ascii: "r")) != nil {
                shard.sendRefused(code: code)
            } else {
                stage = .failed
                shard.setupFailed("\(role) \(index): error \(code)")
            }
        case .other:
            break  // typing, read, session.updated, pong: not measured
        }
    }

    private func becomeReady() {
        guard stage != .ready else { return }
        stage = .ready
        shard.participantReady()
    }

    func closed(_ client: WebSocketClient, reason: CloseReason) {
        guard self.client === client else { return }  // an old connection we replaced
        self.client = nil
        let previous = stage
        stage = .disconnected
        if reason != .local { shard.unexpectedClose(reason, previousStage: previous) }
    }
}
