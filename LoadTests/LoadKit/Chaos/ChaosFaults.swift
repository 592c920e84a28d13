#if canImport(Glibc)
import Glibc
#endif

/// The gateway of a chaos run and the faults applied to it: each fault
/// is recorded with how long the gateway took to be ready and storing again.
final class ChaosFaults {
    let options: ChaosOptions
    let secret: String
    let workspace: String
    let port: UInt16
    let log: DriveLog
    private(set) var gateway: GatewayProcess
    private(set) var faults: [ChaosFault] = []
    private(set) var problems: [String] = []
    private(set) var drain: DrainOutcome?
    /// The webhook receiver (nil with --drain); the faults kill it and start it again.
    var receiver: WebhookReceiverProcess?

    init(options: ChaosOptions, secret: String, workspace: String, log: DriveLog) throws(DriveError) {
        self.options = options
        self.secret = secret
        self.workspace = workspace
        self.log = log
        port = try LocalPorts.free()
        var config = GatewayConfig(port: port, jwtSecret: secret)
        config.threads = 2
        config.shutdownGraceSeconds = ChaosOptions.drainGraceSeconds
        if options.webhooks { config.extra = ChaosWebhooks.gatewayConfig }
        gateway = try GatewayProcess(
            binDirectory: options.binDirectory, databaseURL: options.databaseURL, config: config,
            configPath: TextFile.join(options.workDirectory, "gateway.toml"),
            logPath: TextFile.join(options.outputDirectory, "gateway.log"), core: nil)
    }

    func problem(_ text: String) { problems.append(text) }

    /// Applies `kind` now and waits for the gateway's recovery.
    func apply(_ kind: ChaosFault.Kind) throws(DriveError) {
        let at = DriveClock.wallSeconds()
        var note = ""
        var recovered: Double?
        switch kind {
        case .terminate:
            let done = try DatabaseCommands.psql(
                options.databaseURL,
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name "
                    + "IN ('switchboard-writer', 'switchboard-reader', 'switchboard-webhook-dispatcher', "
                    + "'switchboard-webhook-expander', 'switchboard-webhook-sampler', 'switchboard-search-indexer')")
            let count = done.standardOutput.trimmingPythonSpace()
            note = "\(count.isEmpty ? "0" : count) connections terminated"
            recovered = waitRecovered(since: at)
        case .slow:
            (recovered, note) = try slowConsumer(since: at)
        case .pgRestart:
            let library = BenchmarksDoc.root + "/scripts/lib/common.sh"
            try CapturedCommand.check(["bash", "-c", ". \"$0\" && restart_postgres \"$1\"", library, options.pgdata])
            recovered = waitRecovered(since: at)
        case .receiverDown, .receiverUp:
            (recovered, note) = try receiverFault(kind, since: at)
        case .sigkill, .sigterm:
            let connections = ["visitor", "operator"].reduce(0.0) {
                $0 + (gateway.metric("switchboard_connections{role=\"\($1)\"}") ?? 0)
            }
            gateway.process.signal(kind == .sigkill ? SIGKILL : SIGTERM)
            guard let exit = gateway.process.wait(timeoutSeconds: 30) else {
                throw DriveError("the gateway did not exit within 30 s of \(kind == .sigkill ? "SIGKILL" : "SIGTERM")")
            }
            let stopped = PythonFormat.round(DriveClock.wallSeconds() - at, 2)
            if kind == .sigterm {
                drain = DrainOutcome(exitSeconds: stopped, exitCode: exit.code, connections: connections)
            }
            note = "exited with \(exit.code) after \(PythonFormat.repr(stopped)) s; started again on the same port"
            try gateway.restart()
            recovered = waitRecovered(since: at)
        }
        if kind != .slow && !kind.isReceiver && recovered == nil {
            problems.append(
                "\(kind.rawValue): the gateway was not ready and storing within \(options.recoverySeconds) s")
        }
        faults.append(ChaosFault(kind: kind, at: at, recoveredSeconds: recovered, note: note))
        log(
            "fault \(kind.rawValue): \(note)\(note.isEmpty ? "" : "; ")recovered after "
                + "\(recovered.map(PythonFormat.repr) ?? "None") s")
    }

    /// The receiver killed with SIGKILL (recovered once its port refuses), or
    /// started again on its port and journal (recovered once it accepts).
    private func receiverFault(_ kind: ChaosFault.Kind, since at: Double) throws(DriveError) -> (Double?, String) {
        guard let receiver else { return (nil, "no webhook receiver in this run") }
        if kind == .receiverDown {
            let accepted = receiver.stats()?.delivered
            receiver.kill()
            let gone = !LocalPorts.accepts(port: receiver.port)
            if !gone { problems.append("the webhook receiver still accepted connections after SIGKILL") }
            return (
                gone ? PythonFormat.round(DriveClock.wallSeconds() - at, 2) : nil,
                "killed (SIGKILL) after accepting \(accepted.map(String.init) ?? "?") events"
            )
        }
        try receiver.restart()
        return (PythonFormat.round(DriveClock.wallSeconds() - at, 2), "started again on port \(receiver.port)")
    }

    /// An operator console that subscribes to the workspace's inbox and then never
    /// reads: every message of the load becomes a `session.updated` for it, and the
    /// gateway must cut it off (1008) instead of buffering without bound.
    private func slowConsumer(since at: Double) throws(DriveError) -> (Double?, String) {
        let token = HarnessRuns.token(role: .operator, subject: "op-slow", workspace: workspace, secret: secret)
        let name = "switchboard_slow_consumer_closes_total"
        let before = gateway.metric(name) ?? 0
        let connections: ScriptedConnections
        let consumer: ScriptedConnections.Connection
        do {
            connections = try ScriptedConnections(url: gateway.url, timeout: 5)
            consumer = try connections.open(receiveBufferBytes: 4096)
        } catch {
            throw DriveError("the slow consumer: \(error)")
        }
        consumer.send(ClientFrames.hello(token: token))
        consumer.send(ClientFrames.inboxSubscribe)
        let deadline = DriveClock.monotonicSeconds() + Double(options.recoverySeconds)
        var closes = before
        while DriveClock.monotonicSeconds() < deadline && closes <= before {
            DriveClock.sleep(seconds: 0.2)
            closes = gateway.metric(name) ?? before
        }
        let counted = DriveClock.wallSeconds() - at
        let cut = closes > before ? connections.closedByPeer(consumer, within: 5) : false
        let ended = DriveClock.wallSeconds() - at
        consumer.abort()
        // When each happened, so that a slow cut can be told from a close the consumer never saw.
        let timing =
            closes > before
            ? "counted after \(PythonFormat.round(counted, 2)) s, closed "
                + (cut ? "after \(PythonFormat.round(ended, 2)) s" : "not seen by \(PythonFormat.round(ended, 2)) s")
            : "not counted within \(options.recoverySeconds) s"
        if closes > before && cut {
            return (
                PythonFormat.round(ended, 2),
                "cut off by the gateway (switchboard_slow_consumer_closes_total grew; \(timing))"
            )
        }
        problems.append("the slow consumer was not cut off (\(timing))")
        return (nil, "NOT cut off (\(timing))")
    }

    /// Seconds from `since` until /readyz answers 200 and the gateway has stored
    /// messages again (its stored counter grew or, for a new process, is above
    /// zero), or nil when not within the recovery time.
    private func waitRecovered(since: Double) -> Double? {
        let name = "switchboard_messages_stored_total"
        var stored = gateway.metric(name) ?? 0
        while DriveClock.wallSeconds() - since < Double(options.recoverySeconds) {
            if (try? HTTPClient.request("GET", "/readyz", port: port, timeoutSeconds: 2))?.status == 200 {
                let now = gateway.metric(name) ?? 0
                if now > stored || (stored == 0 && now > 0) {
                    return PythonFormat.round(DriveClock.wallSeconds() - since, 2)
                }
                stored = min(stored, now)
            }
            DriveClock.sleep(seconds: 0.1)
        }
        return nil
    }
}
