import SwitchboardSystem

/// A scenario's own event beside the traffic (a storm's drop and rejoin),
/// run every pass with the current instant; true once it is over.
typealias ScenarioEvent = (UInt64) -> Bool

/// One thread's share of a run: its client loop, its participants and
/// sessions, and everything it measured. Scenarios drive it through phases
/// (connect, traffic, drain); nothing in it is shared with other shards.
final class Shard {
    let loop: ClientLoop
    /// The gateway's nodes (`--url`s), indexed by `Participant.node`.
    let nodes: [GatewayEndpoint]
    let bodyBytes: Int
    /// Every delivered message answered with `read` (`--reads`).
    let sendsReads: Bool
    var sessions: [SessionState] = []
    var participants: [Participant] = []
    var sendScratch: [UInt8] = []

    // Measurements.
    var ackLatency = LatencyRecorder()
    var deliveryLatency = LatencyRecorder()
    var handshakeLatency = LatencyRecorder()
    var reconnectLatency = LatencyRecorder()
    /// With `--alternate`: the delivery latencies again, by the window their send was scheduled in.
    var alternation: AlternatingWindows?
    var sideADeliveryLatency = LatencyRecorder()
    var sideBDeliveryLatency = LatencyRecorder()
    var timeline: Timeline
    /// Latencies and throughput count only sends scheduled at or after this instant (the warm-up ends).
    var recordFrom: UInt64 = .max
    var measuringReconnects = false

    // Counters.
    var sent = 0
    var skippedSends = 0
    var acked = 0
    var refused = 0
    var readsSent = 0
    var readsRefused = 0
    var delivered = 0
    var measuredAcks = 0
    var measuredDeliveries = 0
    var lastAckAt: UInt64 = 0
    var lastDeliveryAt: UInt64 = 0
    var maxLagNanoseconds: UInt64 = 0
    var conflictingAcks = 0
    var unexpectedCloses = 0
    var protocolViolations = 0
    var errors: [String: Int] = [:]
    var notes: Set<String> = []
    var setupErrors: [String] = []
    /// Participants that failed after traffic began (a refused rejoin, an
    /// error frame): the gateway failing a run, counted with the unexpected
    /// closes, where a set-up error would abort the run without a report.
    private(set) var failuresInTraffic = 0
    private var trafficStarted = false
    /// Set when the run closes its connections: no reconnecting after that.
    private var trafficEnded = false

    // Reconnection after a close (`Shard+Reconnect.swift`).
    /// Participants waiting out their back-off, and when each may try again.
    var reconnectQueue: [(participant: Participant, due: UInt64)] = []
    /// Connections lost mid-run that the participant set out to make again,
    /// and how many of those it did.
    var connectionsLost = 0
    /// Of `connectionsLost`: the gateway said it was going away (close 1001, a drain),
    /// and the connection ended with no close frame at all (a killed process, a reset).
    var lostToGoingAway = 0
    var lostWithoutCloseFrame = 0
    var reconnectionsAfterClose = 0
    /// Sends written a second time after a reconnect, and how many of those
    /// were acked as duplicates (stored before; the first ack was lost).
    var resentAfterReconnect = 0
    var duplicateAcksOfRetries = 0

    /// Participants that finished setting up (or failed to) since `connect` began.
    private var settled = 0
    var readyCount = 0

    init(
        loop: ClientLoop, nodes: [GatewayEndpoint], bodyBytes: Int, sendsReads: Bool = false, timelineStart: UInt64
    ) {
        self.loop = loop
        self.nodes = nodes
        self.bodyBytes = bodyBytes
        self.sendsReads = sendsReads
        timeline = Timeline(start: timelineStart)
        sendScratch.reserveCapacity(bodyBytes + 256)
    }

    // MARK: Reports from participants

    func handshakeDone(after nanoseconds: UInt64, reconnect: Bool = false) {
        if measuringReconnects || reconnect {
            reconnectLatency.record(nanoseconds: nanoseconds)
        } else {
            handshakeLatency.record(nanoseconds: nanoseconds)
        }
    }

    func participantReady() {
        readyCount += 1
        settled += 1
        timeline.count(.connected, at: MonotonicClock.nanoseconds())
    }

    func setupFailed(_ message: String) {
        settled += 1
        if trafficStarted {
            failedDuringTraffic(message)
        } else if setupErrors.count < 20 {
            setupErrors.append(message)
        }
    }

    func failedDuringTraffic(_ message: String) {
        failuresInTraffic += 1
        note("failed after traffic started: \(message)")
    }

    func protocolViolation(_ message: String) {
        protocolViolations += 1
        note("protocol violation: \(message)")
    }

    func note(_ message: String) {
        if notes.count < 50 { notes.insert(message) }
    }

    var reconnectsAllowed: Bool { trafficStarted && !trafficEnded }

    func unexpectedClose(_ reason: CloseReason, previousStage: Participant.Stage) {
        unexpectedCloses += 1
        switch previousStage {
        case .ready: readyCount -= 1
        case .connecting, .settingUp: setupFailed("closed during set-up: \(reason)")
        case .disconnected, .failed: break
        }
        note("connection closed by the gateway: \(reason)")
    }

    func sendRefused(code: String) {
        refused += 1
        errors[code, default: 0] += 1
    }

    /// A `read` the gateway answered with an error (`overloaded`, say): not a
    /// correctness failure, a position the client would send again.
    func readRefused(code: String) {
        readsRefused += 1
        errors["read " + code, default: 0] += 1
    }

    /// A message delivered to `participant`: its seq, and its body's range in
    /// `bytes`, which starts with the instant the sender stamped.
    @inline(__always)
    func delivered(
        to participant: Participant, seq: Int64, bytes: UnsafeRawBufferPointer, body: Range<Int>?, at now: UInt64
    ) {
        // A replayed seq the participant already had is not a new delivery.
        if participant.tracker.observe(seq) == .replayed { return }
        delivered += 1
        timeline.count(.delivered, at: now)
        guard let body, let scheduled = ClientFrames.stampedInstant(bytes, body, prefix: UInt8(ascii: "t")),
            scheduled >= recordFrom
        else { return }
        measuredDeliveries += 1
        lastDeliveryAt = now
        let latency = now &- scheduled
        deliveryLatency.record(nanoseconds: latency)
        switch alternation?.side(ofMonotonic: scheduled) {
        case .a: sideADeliveryLatency.record(nanoseconds: latency)
        case .b: sideBDeliveryLatency.record(nanoseconds: latency)
        case nil: break
        }
    }

    func acked(by participant: Participant, frame: ServerFrame, bytes: UnsafeRawBufferPointer, at now: UInt64) {
        acked += 1
        timeline.count(.acked, at: now)
        let messageID = frame.clientMsgID.flatMap { ClientFrames.parseMessageID(bytes[$0]) }
        let retried = messageID.map { participant.answered(messageID: $0) } ?? false
        if frame.duplicate {
            // A retry's duplicate ack is the protocol at work: the first copy
            // was stored and its ack lost with the connection.
            if retried {
                duplicateAcksOfRetries += 1
            } else {
                errors["ack.duplicate (never retried by the harness)", default: 0] += 1
            }
        }
        // `unanswered` is counted from totals, so an ack that is not one
        // send's first must fail the run itself: it could stand in for a
        // send that was never answered. (The harness retries a send only
        // after a reconnect, and only one whose ack never came: one ack each.)
        if let messageID {
            switch sessions[participant.session].recordAck(seq: frame.seq, messageID: messageID) {
            case .recorded: break
            case .repeated: protocolViolation("a second ack for one send")
            case .conflicting: conflictingAcks += 1
            }
        } else {
            protocolViolation("an ack without one of the harness's client_msg_ids")
        }
        guard let ref = frame.ref, let scheduled = ClientFrames.stampedInstant(bytes, ref, prefix: UInt8(ascii: "r")),
            scheduled >= recordFrom
        else { return }
        measuredAcks += 1
        lastAckAt = now
        ackLatency.record(nanoseconds: now &- scheduled)
    }

    // MARK: Phases

    /// Runs the loop until `done` says so or `deadline` passes; true when done.
    @discardableResult
    func run(until deadline: UInt64, _ done: (UInt64) -> Bool) -> Bool {
        var finished = false
        loop.run {
            let now = MonotonicClock.nanoseconds()
            if !reconnectQueue.isEmpty { startDueReconnects(now) }
            if done(now) {
                finished = true
                return false
            }
            return now < deadline
        }
        return finished
    }

    /// Connects `group` with at most `concurrency` set-ups in flight (0: all at
    /// once) and waits until each is ready or has failed. Returns the seconds it took.
    func connect(_ group: [Participant], concurrency: Int, timeoutSeconds: Double) -> Double {
        let started = MonotonicClock.nanoseconds()
        let settledBefore = settled
        var cursor = 0
        let limit = concurrency > 0 ? concurrency : group.count
        run(until: started + UInt64(timeoutSeconds * 1e9)) { _ in
            while cursor < group.count && cursor - (settled - settledBefore) < limit {
                group[cursor].connect(loop: loop)
                cursor += 1
            }
            return settled - settledBefore >= group.count
        }
        if settled - settledBefore < group.count {
            setupErrors.append(
                "\(group.count - (settled - settledBefore)) connections not ready after \(timeoutSeconds) s")
        }
        return Double(MonotonicClock.nanoseconds() - started) / 1e9
    }

    /// Open-loop sending: message k is due at `start + k / rate`, from
    /// `senders[k % count]`, whether or not earlier ones were answered.
    /// `during` runs every pass with the current instant (storms use it).
    func traffic(
        senders: [Participant], rate: Double, start: UInt64, seconds: Double, during: ScenarioEvent? = nil
    ) {
        guard !senders.isEmpty, rate > 0 else { return }
        trafficStarted = true
        let end = start + UInt64(seconds * 1e9)
        let total = Int(seconds * rate)
        var issued = 0
        let interval = 1e9 / rate
        run(until: end + 1_000_000_000) { now in
            if now >= start {
                let due = min(total, Int(Double(now - start) / interval) + 1)
                while issued < due {
                    let scheduled = start + UInt64(Double(issued) * interval)
                    if senders[issued % senders.count].send(scheduled: scheduled) {
                        sent += 1
                        timeline.count(.sent, at: now)
                        if now > scheduled { maxLagNanoseconds = max(maxLagNanoseconds, now - scheduled) }
                    } else {
                        skippedSends += 1
                    }
                    issued += 1
                }
            }
            _ = during?(now)
            return issued >= total
        }
    }

    /// Waits until every send is answered and every connected participant has
    /// every acked seq of its session, or until the deadline. True when it got there.
    /// `during` goes on running, and the drain waits for it to say its event
    /// is over: a storm's operators still rejoining when the last message went
    /// out must be back, and caught up, before the run is judged.
    @discardableResult
    func drain(timeoutSeconds: Double, during: ScenarioEvent? = nil) -> Bool {
        let deadline = MonotonicClock.nanoseconds() + UInt64(timeoutSeconds * 1e9)
        var nextCheck: UInt64 = 0
        var eventOver = during == nil
        return run(until: deadline) { now in
            if !eventOver, let during { eventOver = during(now) }
            guard now >= nextCheck else { return false }
            nextCheck = now + 20_000_000
            return eventOver && acked + refused >= sent && allCaughtUp()
        }
    }

    /// A participant still reconnecting has not caught up: it is waited for.
    private func allCaughtUp() -> Bool {
        participants.allSatisfy {
            !$0.awaitingReconnect && (!$0.isReady || $0.tracker.highest >= sessions[$0.session].maxAckedSeq)
        }
    }

    /// Closes every connection politely and gives the gateway a moment to see it.
    /// A participant not back from a close by now fails the run: its checks
    /// would otherwise be skipped, since only connected participants are held
    /// to every seq of their session.
    func closeAll() {
        for participant in participants where participant.awaitingReconnect {
            failedDuringTraffic("a participant was not back after a close when the run ended")
        }
        trafficEnded = true
        reconnectQueue.removeAll()
        for participant in participants { participant.close() }
    }

    /// What the run saw of ordering and loss, after the drain.
    func correctness() -> Correctness {
        var result = Correctness()
        for index in participants.indices {
            let participant = participants[index]
            if participant.isReady {
                participants[index].tracker.expectThrough(sessions[participant.session].maxAckedSeq)
            }
            result.gaps += participants[index].tracker.gaps
            result.duplicates += participants[index].tracker.duplicates
            result.reorders += participants[index].tracker.reorders
        }
        result.unanswered = max(0, sent - acked - refused)
        result.lostAcks = conflictingAcks
        result.unexpectedCloses = unexpectedCloses + protocolViolations + failuresInTraffic
        result.errors = errors
        return result
    }
}
