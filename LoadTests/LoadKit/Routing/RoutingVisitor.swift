import SwitchboardSystem

/// One simulated widget of the routing scenario: it arrives, opens a
/// session, writes its first message, follows its session's own events (the
/// story routing told it) and leaves once an operator closed the session.
final class RoutingVisitor: RoutingClient {
    let index: Int
    var state = SessionState()
    var tracker = SequenceTracker()
    private(set) var sentAt: UInt64 = 0
    private(set) var acked = false
    private(set) var finished = false

    init(index: Int, token: String, node: Int, run: RoutingRun) {
        self.index = index
        super.init(name: "visitor \(index)", token: token, node: node, run: run)
    }

    var messageID: UInt64 { ClientFrames.messageID(sender: index, counter: 1) }

    // MARK: Frames

    override func received(_ text: UnsafeRawBufferPointer, on client: WebSocketClient) {
        guard let frame = RoutingFrames.read(text) else {
            return run.violation("visitor \(index): a frame that is not a JSON object")
        }
        switch frame.type {
        case "welcome":
            client.sendText(ClientFrames.createSession(title: "routing \(index)"))
        case "session":
            guard let range = frame.session, let snapshot = RoutingFrames.snapshot(text, range) else {
                return run.violation("visitor \(index): a session frame without an id and version")
            }
            state.assign(id: Array(snapshot.session.utf8))
            run.invariants.snapshot(snapshot, at: client.lastReadAt)
            sendFirstMessage(on: client)
        case "ack":
            guard frame.seq >= 1 else { return run.violation("visitor \(index): an ack without a seq") }
            if state.recordAck(seq: frame.seq, messageID: messageID) != .recorded {
                run.violation("visitor \(index): a second or conflicting ack")
            }
            acked = true
            run.firstMessageAcked(self, at: client.lastReadAt)
        case "message":
            message(frame, text)
        case "session.updated":
            guard let range = frame.session, let snapshot = RoutingFrames.snapshot(text, range) else {
                return run.violation("visitor \(index): a session.updated without a session id and version")
            }
            run.invariants.snapshot(snapshot, at: client.lastReadAt)
        case "error":
            run.failed("visitor \(index): error \(frame.code ?? "unknown") (ref \(frame.ref ?? "none"))")
        default:
            break  // availability, typing, read: not judged here
        }
    }

    private func sendFirstMessage(on client: WebSocketClient) {
        run.sendScratch.removeAll(keepingCapacity: true)
        sentAt = MonotonicClock.nanoseconds()
        ClientFrames.appendSend(
            to: &run.sendScratch, scheduled: sentAt, sessionID: state.idBytes, messageID: messageID,
            bodyBytes: run.bodyBytes)
        run.sendScratch.withUnsafeBytes { client.sendText($0) }
        run.invariants.firstMessageSent(state.id, at: sentAt)
    }

    private func message(_ frame: RoutingFrames.Frame, _ text: UnsafeRawBufferPointer) {
        guard frame.seq >= 1 else { return run.violation("visitor \(index): a message without a valid seq") }
        switch tracker.observe(frame.seq) {
        case .duplicate, .replayed: return
        default: break
        }
        guard frame.isEvent, let meta = frame.meta, let stored = RoutingFrames.stored(text, meta: meta) else { return }
        run.invariants.stored(stored, in: state.id)
        if stored == .closed { leave() }
    }

    /// Its session is over: the widget goes, as a visitor closing the tab would.
    private func leave() {
        finished = true
        tracker.expectThrough(state.maxAckedSeq)
        run.visitorFinished()
        close()
    }

}
