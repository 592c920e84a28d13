import SwitchboardAuth
import SwitchboardSystem

/// `loadtest routing`: N operators spread over the nodes sign in and go
/// online; M visitors arrive at a rate, each opening a session and writing
/// its first message; operators close what they were given after a while
/// and take turns going `away` and back while visitors arrive. Every frame
/// goes through `RoutingInvariants`; one client loop on one thread drives it
/// all (a routing run is about decisions, not about the harness's speed).
final class RoutingRun {
    let options: LoadOptions
    let nodes: [GatewayEndpoint]
    let loop: ClientLoop
    let workspace: String
    let bodyBytes: Int
    var invariants = RoutingInvariants()
    var sendScratch: [UInt8] = []
    var operators: [RoutingOperator] = []
    var visitors: [RoutingVisitor] = []
    var capacitySeen: Int?

    private(set) var readyOperators = 0
    private(set) var finishedVisitors = 0
    private(set) var ackedVisitors = 0
    var ackLatency = LatencyRecorder()
    /// Failures of the run itself (a refused frame, a dropped connection) and
    /// frames the protocol does not allow, each kept as a note.
    private(set) var failures = 0
    private(set) var protocolViolations = 0
    private(set) var notes: Set<String> = []
    /// The most sessions seen waiting at once (acked, not assigned yet).
    private(set) var longestQueue = 0
    private(set) var awaySwitches = 0

    init(options: LoadOptions, workspace: String) throws(LoadRun.SetupError) {
        self.options = options
        nodes = options.endpoints
        self.workspace = workspace
        bodyBytes = options.bodyBytes
        do {
            loop = try ClientLoop(host: options.host, port: options.port, path: options.path)
        } catch {
            throw LoadRun.SetupError(description: "cannot create a client loop: \(error)")
        }
        sendScratch.reserveCapacity(bodyBytes + 256)
        for index in 0..<options.operators {
            let id = "lt-r-o\(index)"
            operators.append(
                RoutingOperator(
                    id: id, token: token(id, .operator, "Operator \(index)"), node: index % nodes.count, run: self))
        }
        for index in 0..<options.sessions {
            visitors.append(
                RoutingVisitor(
                    index: index, token: token("lt-r-v\(index)", .visitor, "Visitor \(index)"),
                    node: (index + 1) % nodes.count, run: self))
        }
    }

    /// A token of this run's workspace, signed with the gateway's secret.
    func token(_ subject: String, _ role: Role, _ name: String) -> String {
        let now = UnixClock.nowSeconds()
        return TokenMinter.mint(
            TokenClaims(
                subject: subject, role: role, workspaceID: workspace, name: name, issuedAt: now,
                expiresAt: now + 12 * 3600), secret: options.jwtSecret)
    }

    // MARK: Reports from participants

    func operatorReady() { readyOperators += 1 }
    func visitorFinished() { finishedVisitors += 1 }

    func firstMessageAcked(_ visitor: RoutingVisitor, at instant: UInt64) {
        ackedVisitors += 1
        ackLatency.record(nanoseconds: instant &- visitor.sentAt)
        invariants.firstMessageAcked(visitor.state.id, at: instant)
        longestQueue = max(longestQueue, invariants.waitingCount)
    }

    func failed(_ message: String) {
        failures += 1
        note(message)
    }

    func violation(_ message: String) {
        protocolViolations += 1
        note("protocol violation: \(message)")
    }

    func note(_ message: String) {
        if notes.count < 40 { notes.insert(message) }
    }

    /// How long an operator keeps `session`: the run's hold, from half to one
    /// and a half times it, the same for a session whichever run replays it.
    func holdNanoseconds(_ session: String) -> UInt64 {
        var hash: UInt64 = 1_469_598_103_934_665_603
        for byte in session.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        let share = 0.5 + Double(hash % 1000) / 1000
        return UInt64(options.holdSeconds * share * 1e9)
    }

    // MARK: Phases

    /// Runs the loop until `done` or the deadline; true when done.
    @discardableResult
    private func run(until deadline: UInt64, _ done: (UInt64) -> Bool) -> Bool {
        var finished = false
        loop.run {
            let now = MonotonicClock.nanoseconds()
            for op in operators { op.closeDue(now) }
            if done(now) {
                finished = true
                return false
            }
            return now < deadline
        }
        return finished
    }

    /// Every operator connected, subscribed and online; the set-up errors, if any.
    func signIn() -> String? {
        let started = MonotonicClock.nanoseconds()
        var cursor = 0
        let limit = max(1, options.connectConcurrency)
        let ready = run(until: started + UInt64(options.setupTimeoutSeconds * 1e9)) { _ in
            while cursor < operators.count && cursor - readyOperators < limit {
                do {
                    try operators[cursor].connect(loop: loop)
                } catch {
                    failed("operator \(operators[cursor].id): connect: \(error)")
                }
                cursor += 1
            }
            return readyOperators >= operators.count || failures > 0
        }
        if failures > 0 { return notes.sorted().first ?? "an operator failed to sign in" }
        return ready
            ? nil : "\(operators.count - readyOperators) operators not online after \(options.setupTimeoutSeconds) s"
    }

    /// With `--backlog`: from every operator coming online to a queue of
    /// every visitor, until the last of them was seen assigned.
    private(set) var backlogSeconds: Double?

    /// Visitors arrive at the rate while operators take turns being away
    /// (with `--backlog`: while every operator is away, then all come online
    /// at once); then everyone is online until every session was closed, or
    /// the drain ends. Returns whether every visitor finished.
    func traffic() -> Bool {
        if options.backlog {
            for op in operators { op.setStatus("away") }
            run(until: MonotonicClock.nanoseconds() + UInt64(options.setupTimeoutSeconds * 1e9)) { _ in
                operators.allSatisfy(\.statusConfirmed)
            }
        }
        let start = MonotonicClock.nanoseconds() + 20_000_000
        let interval = 1e9 / max(options.rate, 0.001)
        let arrivalsEnd = start + UInt64(Double(visitors.count) * interval)
        var arrived = 0
        run(until: arrivalsEnd + 2_000_000_000) { now in
            if now >= start {
                let due = min(visitors.count, Int(Double(now - start) / interval) + 1)
                while arrived < due {
                    do {
                        try visitors[arrived].connect(loop: loop)
                    } catch {
                        failed("visitor \(arrived): connect: \(error)")
                    }
                    arrived += 1
                }
            }
            if !options.backlog { turnAway(now, since: start) }
            return arrived >= visitors.count
        }
        if options.backlog {
            // Every first message stored (queued) before anyone comes back.
            run(until: MonotonicClock.nanoseconds() + UInt64(options.drainSeconds * 1e9)) { _ in
                ackedVisitors + failures >= visitors.count
            }
        }
        let online = MonotonicClock.nanoseconds()
        for op in operators { op.setStatus("online") }
        if options.backlog {
            let assigned = run(until: online + UInt64(options.drainSeconds * 1e9)) { _ in
                invariants.assignments >= visitors.count
            }
            if assigned { backlogSeconds = Double(invariants.lastAssignmentAt &- online) / 1e9 }
        }
        let drainEnd = MonotonicClock.nanoseconds() + UInt64(options.drainSeconds * 1e9)
        return run(until: drainEnd) { _ in finishedVisitors >= visitors.count }
    }

    /// Operator i is away for `awaySeconds` of every `awayEverySeconds`,
    /// the operators' turns spread evenly over the period.
    private func turnAway(_ now: UInt64, since start: UInt64) {
        guard options.awaySeconds > 0, options.awayEverySeconds > options.awaySeconds, now > start else { return }
        let period = options.awayEverySeconds
        let elapsed = Double(now - start) / 1e9
        for (index, op) in operators.enumerated() where op.ready {
            let offset = period * Double(index) / Double(operators.count)
            let phase = (elapsed + period - offset).truncatingRemainder(dividingBy: period)
            let wanted = elapsed >= offset && phase < options.awaySeconds ? "away" : "online"
            if wanted != op.status {
                awaySwitches += 1
                op.setStatus(wanted)
            }
        }
    }

    func closeAll() {
        for visitor in visitors { visitor.close() }
        for op in operators { op.close() }
        run(until: MonotonicClock.nanoseconds() + 200_000_000) { _ in false }
    }
}
