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
    /// The shard, borrowed without a retain (an unowned reference retained
    /// and released it at each use: about 4% of a fan-out run's profile of the
    /// harness). The shard outlives its participants.
    private let borrowedShard: Unmanaged<Shard>
    var shard: Shard { borrowedShard.takeUnretainedValue() }
    var client: WebSocketClient?
    var stage = Stage.disconnected
    var tracker = SequenceTracker()
    var connectStartedAt: UInt64 = 0
    private(set) var sendCounter = 0
    /// The highest seq this participant said it read (`--reads`).
    private var readSent: Int64 = 0
    /// Sends not answered yet, for a reconnect to send again (`Participant+Reconnect.swift`).
    var outstanding = OutstandingSends()
    /// The highest send counter written to a connection, and the highest
    /// written a second time after a reconnect.
    var writtenThrough = 0
    var retriedThrough = 0
    /// From a close the run survives (`ReconnectPolicy`) until ready again,
    /// or until it gives up; `reconnectAttempt` counts the tries since.
    var awaitingReconnect = false
    var reconnectAttempt = 0
    /// Set up once at least: only such a participant reconnects.
    private(set) var wasReady = false

    init(index: Int, role: Role, token: String, session: Int, node: Int, shard: Shard) {
        self.index = index
        self.role = role
        self.token = token
        self.session = session
        self.node = node
        borrowedShard = Unmanaged.passUnretained(shard)
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
        awaitingReconnect = false
        client?.close()
    }

    /// Sends the next message, or keeps it for after the reconnect under
    /// way (an outbox, as the widget's SDK keeps); false when the
    /// participant can do neither.
    func send(scheduled: UInt64) -> Bool {
        if stage == .ready, let client {
            sendCounter += 1
            outstanding.append(counter: sendCounter, scheduled: scheduled)
            writtenThrough = sendCounter
            writeSend(counter: sendCounter, scheduled: scheduled, on: client)
            return true
        }
        guard awaitingReconnect else { return false }
        sendCounter += 1
        outstanding.append(counter: sendCounter, scheduled: scheduled)
        return true
    }

    /// Send `counter`'s frame: the same bytes whenever it is written.
    func writeSend(counter: Int, scheduled: UInt64, on client: WebSocketClient) {
        shard.sendScratch.removeAll(keepingCapacity: true)
        ClientFrames.appendSend(
            to: &shard.sendScratch, scheduled: scheduled, sessionID: shard.sessions[session].idBytes,
            messageID: ClientFrames.messageID(sender: index, counter: counter), bodyBytes: shard.bodyBytes)
        shard.sendScratch.withUnsafeBytes { client.sendText($0) }
    }

    /// An ack answered `messageID`: true when that send had been written
    /// again after a reconnect (its duplicate ack is then expected).
    func answered(messageID: UInt64) -> Bool {
        guard messageID >> 24 == UInt64(index),
            let counter = outstanding.answer(counterBits: Int(messageID & 0xFF_FFFF))
        else { return false }
        return counter <= retriedThrough
    }

    // MARK: WebSocketClientDelegate

    func opened(_ client: WebSocketClient) {
        client.sendText(ClientFrames.hello(token: token))
    }

    func received(_ text: UnsafeRawBufferPointer, on client: WebSocketClient) {
        // Nearly every frame of a run: read on a path of its own (MessageFrame).
        if let message = MessageFrame.read(text) {
            delivered(message.seq, body: message.body, in: text, at: client.lastReadAt)
            return
        }
        guard let frame = ServerFrame.readMembers(text) else {
            shard.protocolViolation("a frame that is not a JSON object")
            return
        }
        switch frame.kind {
        case .message:
            delivered(frame.seq, body: frame.body, in: text, at: client.lastReadAt)
        case .ack:
            shard.acked(by: self, frame: frame, bytes: text, at: client.lastReadAt)
        case .welcome:
            shard.handshakeDone(after: MonotonicClock.nanoseconds() &- connectStartedAt, reconnect: awaitingReconnect)
            stage = .settingUp
            let sessionID = shard.sessions[session].id
            if role == .visitor && sessionID.isEmpty {
                client.sendText(ClientFrames.createSession(title: "load \(index)"))
            } else {
                client.sendText(ClientFrames.join(sessionID: sessionID, since: tracker.rejoin()))
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
            if let ref = frame.ref, text[ref].elementsEqual(ClientFrames.readRef.utf8) {
                shard.readRefused(code: code)
            } else if let ref = frame.ref,
                let instant = ClientFrames.stampedInstant(text, ref, prefix: UInt8(ascii: "r"))
            {
                _ = outstanding.answer(scheduled: instant)
                shard.sendRefused(code: code)
            } else if awaitingReconnect && (code == "overloaded" || code == "unavailable") {
                // A rejoin the gateway cannot serve right now (its readers' queue is full
                // when thousands rejoin at once): retry later, as the protocol asks of clients.
                retryRejoin(after: code)
            } else {
                stage = .failed
                awaitingReconnect = false
                shard.setupFailed("\(role) \(index): error \(code)")
            }
        case .other:
            break  // typing, read, session.updated, pong: not measured
        }
    }

    private func delivered(_ seq: Int64, body: Range<Int>?, in text: UnsafeRawBufferPointer, at now: UInt64) {
        // Without a valid seq the tracker would count it as a duplicate.
        guard seq >= 1 else { return shard.protocolViolation("a message without a valid seq") }
        borrowedShard._withUnsafeGuaranteedRef { $0.delivered(to: self, seq: seq, bytes: text, body: body, at: now) }
        if shard.sendsReads && stage == .ready, let client { sendRead(seq, on: client) }
    }

    /// Read up to `seq`, as the SDK tells the gateway of a message shown: only forward.
    private func sendRead(_ seq: Int64, on client: WebSocketClient) {
        guard seq > readSent else { return }
        readSent = seq
        shard.readsSent += 1
        client.sendText(ClientFrames.read(sessionID: shard.sessions[session].id, seq: seq, ref: ClientFrames.readRef))
    }

    private func becomeReady() {
        guard stage != .ready else { return }
        stage = .ready
        wasReady = true
        if awaitingReconnect {
            awaitingReconnect = false
            reconnectAttempt = 0
            shard.participantBack()
        } else {
            shard.participantReady()
        }
        if !outstanding.isEmpty { sendOutstanding() }
    }

    func closed(_ client: WebSocketClient, reason: CloseReason) {
        guard self.client === client else { return }  // an old connection we replaced
        self.client = nil
        let previous = stage
        stage = .disconnected
        guard reason != .local else { return }
        if mayReconnect(after: reason) {
            connectionLost(reason, previousStage: previous)
        } else {
            awaitingReconnect = false
            shard.unexpectedClose(reason, previousStage: previous)
        }
    }
}
