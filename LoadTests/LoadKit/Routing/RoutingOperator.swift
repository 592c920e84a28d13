import SwitchboardSystem

/// One simulated console of the routing scenario: it signs in, subscribes
/// to the inbox (which is how a console learns what it was given), says
/// `online`, closes each session given to it after a while, and goes `away`
/// and back when the run tells it to.
final class RoutingOperator: RoutingClient {
    let id: String
    private(set) var ready = false
    private var subscribed = false
    private var online = false
    /// The status last asked for, and whether its `presence` reply came.
    private(set) var status = "online"
    private(set) var statusConfirmed = false
    /// Sessions given to it and when it closes each (a close is sent once).
    private(set) var closing: [(session: String, due: UInt64)] = []
    private var scheduled: Set<String> = []
    private var closeCounter = 0

    init(id: String, token: String, node: Int, run: RoutingRun) {
        self.id = id
        super.init(name: "operator \(id)", token: token, node: node, run: run)
    }

    func setStatus(_ wanted: String) {
        guard let client, status != wanted else { return }
        status = wanted
        statusConfirmed = false
        client.sendText(RoutingFrames.presenceSet(wanted, ref: "p-" + wanted))
    }

    /// Sends the closes that are due; the run calls it every pass of its loop.
    func closeDue(_ now: UInt64) {
        guard let client, let first = closing.first, first.due <= now else { return }
        while let next = closing.first, next.due <= now {
            closing.removeFirst()
            closeCounter += 1
            run.invariants.closeRequested(next.session)
            client.sendText(RoutingFrames.sessionClose(next.session, ref: "c\(closeCounter)-" + next.session))
        }
    }

    // MARK: Frames

    override func received(_ text: UnsafeRawBufferPointer, on client: WebSocketClient) {
        guard let frame = RoutingFrames.read(text) else {
            return run.violation("operator \(id): a frame that is not a JSON object")
        }
        switch frame.type {
        case "welcome":
            client.sendText(ClientFrames.inboxSubscribe)
            client.sendText(RoutingFrames.presenceSet("online", ref: "p-online"))
        case "inbox":
            subscribed = true
            becomeReady()
        case "presence":
            presence(frame, text)
        case "session.updated":
            guard let range = frame.session, let snapshot = RoutingFrames.snapshot(text, range) else {
                return run.violation("operator \(id): a session.updated without a session id and version")
            }
            run.invariants.snapshot(snapshot, at: client.lastReadAt)
            if let ref = frame.ref, ref.hasPrefix("c") { run.invariants.closeAnswered(snapshot.session) }
            if snapshot.operatorID == id && !snapshot.closed && !scheduled.contains(snapshot.session) {
                scheduled.insert(snapshot.session)
                closing.append((snapshot.session, client.lastReadAt + run.holdNanoseconds(snapshot.session)))
                closing.sort { $0.due < $1.due }
            }
        case "error":
            let code = frame.code ?? "unknown"
            if let ref = frame.ref, ref.hasPrefix("c"), let dash = ref.firstIndex(of: "-") {
                run.invariants.closeAnswered(String(ref[ref.index(after: dash)...]))
            }
            run.failed("operator \(id): error \(code) (ref \(frame.ref ?? "none"))")
        default:
            break  // presence.updated, availability, pong: not judged here
        }
    }

    private func presence(_ frame: RoutingFrames.Frame, _ text: UnsafeRawBufferPointer) {
        guard let object = frame.operatorObject, let capacity = RoutingFrames.integer("capacity", of: text, object),
            let said = RoutingFrames.member("status", of: text, object)
        else { return run.violation("operator \(id): a presence reply without status and capacity") }
        run.invariants.capacity(of: id, is: Int(capacity))
        run.capacitySeen = Int(capacity)
        if frame.ref == "p-" + status {
            if said != status { run.violation("operator \(id) asked for \(status), presence says \(said)") }
            statusConfirmed = true
        }
        if said == "online" { online = true }
        becomeReady()
    }

    private func becomeReady() {
        guard !ready, subscribed, online else { return }
        ready = true
        run.operatorReady()
    }

    override func disconnected() {
        ready = false
    }
}
