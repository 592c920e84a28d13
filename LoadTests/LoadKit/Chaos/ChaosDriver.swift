import SwitchboardJSON

/// `loadtest chaos`: the `conversations` load against a gateway while a
/// schedule of faults is applied, then the verdict and an HTML report
/// (docs/operations.md, "Chaos runs" and "Graceful drain under load").
public enum ChaosDriver {
    public static func main(_ arguments: [String]) -> Int32 {
        DriverMain.run(
            arguments, usage: ChaosOptions.usage, tag: "chaos", parse: ChaosOptions.init(arguments:), run: run)
    }

    static func run(_ options: ChaosOptions, log: DriveLog) throws(DriveError) -> Bool {
        log(
            "conversations at \(options.rate) msg/s over \(options.sessions) sessions for \(options.seconds) s, "
                + (options.mode == .drain ? "with one SIGTERM" : "with faults"))
        try DatabaseCommands.migrate(binDirectory: options.binDirectory, databaseURL: options.databaseURL)
        let secret = HarnessRuns.newSecret()
        let workspace = HarnessRuns.newWorkspace()
        let chaos = try ChaosFaults(options: options, secret: secret, workspace: workspace, log: log)
        defer { chaos.gateway.stop() }
        if options.webhooks {
            chaos.receiver = try startWebhooks(
                options, gateway: chaos.gateway, secret: secret, workspace: workspace, log: log)
        }
        defer { chaos.receiver?.stop() }
        let command = HarnessRuns.command(
            binDirectory: options.binDirectory, scenario: "conversations", url: chaos.gateway.url, secret: secret,
            databaseURL: options.databaseURL,
            options: [
                "--workspace", workspace, "--sessions", String(options.sessions), "--operators", "2", "--rate",
                String(options.rate), "--seconds", String(options.seconds), "--drain", "30", "--out",
                options.outputDirectory,
            ])
        let harnessLog = TextFile.join(options.outputDirectory, "loadtest.txt")
        do {
            try TextFile.write(harnessLog, "")
        } catch {
            throw DriveError(error.description)
        }
        let harness = try SpawnedProcess(command, output: .file(harnessLog))
        // The schedule counts from the traffic, which starts once every client is set up.
        let readyDeadline = DriveClock.monotonicSeconds() + 120
        while DriveClock.monotonicSeconds() < readyDeadline && harness.isRunning {
            if (chaos.gateway.metric("switchboard_messages_stored_total") ?? 0) > 0 { break }
            DriveClock.sleep(seconds: 0.2)
        }
        let traffic = DriveClock.wallSeconds()
        for (offset, kind) in options.schedule {
            DriveClock.sleep(seconds: traffic + offset - DriveClock.wallSeconds())
            if !harness.isRunning {
                chaos.problem("the harness ended before the \(kind.rawValue) fault")
                break
            }
            try chaos.apply(kind)
        }
        let harnessExit: ProcessExit
        if let exit = harness.wait(timeoutSeconds: Double(options.seconds + 300)) {
            harnessExit = exit
        } else {
            chaos.problem("the harness did not finish within \(options.seconds + 300) s")
            harnessExit = harness.stop(timeoutSeconds: 10)
        }
        var webhooks: (outcome: ChaosWebhookOutcome, problems: [String])?
        if let receiver = chaos.receiver {
            webhooks = checkWebhooks(options, receiver: receiver, workspace: workspace, log: log)
        }
        chaos.gateway.stop()
        let reportPath = TextFile.join(options.outputDirectory, "conversations.json")
        let parsed = HarnessRuns.report(reportPath)
        if parsed == nil { chaos.problem("no harness report (\(reportPath))") }
        let report = parsed ?? [:]
        let (problems, drain) = ChaosVerdict.judge(
            report: report, harnessExit: harnessExit.code, faults: chaos.faults, trafficStart: traffic,
            drain: chaos.drain, drainMode: options.mode == .drain)
        let result = ChaosResult(
            options: options, report: report, faults: chaos.faults,
            problems: chaos.problems + problems + (webhooks?.problems ?? []), drain: drain, webhooks: webhooks?.outcome)
        if options.mode == .drain {
            log(
                "drain: \(drain?.closedWith1001 ?? 0) of \(drain?.clients ?? 0) clients got 1001, "
                    + "\(drain?.endedWithoutCloseFrame ?? 0) without a close frame; the gateway exited "
                    + "\(drain.map { String($0.exitCode) } ?? "None") after "
                    + "\(drain.map { PythonFormat.repr($0.exitSeconds) } ?? "None") s with "
                    + "\(drain.map { PythonFormat.repr($0.connections) } ?? "None") chat connections open")
        }
        let base = TextFile.join(options.outputDirectory, options.reportName)
        do {
            try TextFile.write(base + ".html", ChaosReport.html(result))
            try TextFile.write(base + ".json", ChaosReport.json(result))
        } catch {
            throw DriveError(error.description)
        }
        let correctness = report["correctness"]
        func count(_ key: String, _ fallback: String) -> String { PythonFormat.str(correctness?[key], or: fallback) }
        log(
            "\(result.passed ? "passed" : "FAILED"): \(count("verified_in_database", "0")) acked messages verified "
                + "in the database; \(count("gaps", "?")) gaps, \(count("duplicates", "?")) duplicates, "
                + "\(count("lost_acks", "?")) lost acks; report \(base).html")
        for problem in result.problems { log("problem: \(problem)") }
        return result.passed
    }

    /// An admin's endpoint for message.created in the run's workspace, and the receiver it points at.
    static func startWebhooks(
        _ options: ChaosOptions, gateway: GatewayProcess, secret: String, workspace: String, log: DriveLog
    ) throws(DriveError) -> WebhookReceiverProcess {
        try WebhookAPI.ensureWorkspace(workspace, databaseURL: options.databaseURL)
        let port = try LocalPorts.free()
        let endpoint = try WebhookAPI.create(
            port: gateway.port, token: WebhookAPI.adminToken(workspace: workspace, secret: secret),
            url: "http://127.0.0.1:\(port)/webhook", events: ["message.created"], description: "chaos")
        let out = options.outputDirectory
        let receiver = try WebhookReceiverProcess(
            binDirectory: options.binDirectory, port: port, secret: endpoint.secret,
            journalPath: TextFile.join(out, "webhooks.journal"), logPath: TextFile.join(out, "webhooks.log"),
            summaryPath: TextFile.join(out, "webhooks.json"), core: nil, nice: [])
        log(
            "webhooks: endpoint \(endpoint.id) for message.created -> \(receiver.url); the gateway runs with the "
                + "test-only webhooks.retry_divisor = \(ChaosWebhooks.retryDivisor), so the retry schedule (5 s, 5 min, "
                + "30 min, 2 h, 5 h, 10 h, 10 h) is \(ChaosWebhooks.scheduleText) and a receiver down for a minute is "
                + "retried within the run")
        return receiver
    }

    /// After the traffic: the receiver up, the outbox drained, then every
    /// message.created event written must be in the receiver's journal.
    static func checkWebhooks(
        _ options: ChaosOptions, receiver: WebhookReceiverProcess, workspace: String, log: DriveLog
    ) -> (outcome: ChaosWebhookOutcome, problems: [String]) {
        var problems: [String] = []
        if !receiver.process.isRunning {
            do throws(DriveError) {
                try receiver.restart()
            } catch {
                problems.append("webhooks: the receiver could not be started again: \(error)")
            }
        }
        let timeout = ChaosWebhooks.drainTimeout(options.mode)
        log(
            "webhooks: waiting for the outbox to drain (while its depth goes down at least once every "
                + "\(Int(ChaosWebhooks.drainStallSeconds)) s, at most \(Int(timeout)) s)")
        let drained = WebhookOutbox.waitUntilDrained(
            options.databaseURL, timeoutSeconds: timeout, stallSeconds: ChaosWebhooks.drainStallSeconds)
        let ids = try? WebhookOutbox.messageEventIDs(options.databaseURL, workspace: workspace)
        let reportable = WebhookOutbox.reportableMessages(options.databaseURL, workspace: workspace)
        let failed = WebhookOutbox.failed(options.databaseURL)
        receiver.stop()
        let verdict = ChaosWebhooks.judge(
            eventIDs: ids, reportable: reportable, journal: receiver.journal, failed: failed, drainSeconds: drained)
        let outcome = verdict.outcome
        let drainText = drained.map { "drained \(PythonFormat.repr($0)) s after the traffic" } ?? "NOT drained"
        let events = outcome.events.map(String.init) ?? "?"
        let stored = outcome.reportableMessages.map(String.init) ?? "?"
        let failedText = outcome.failedDeliveries.map(String.init) ?? "?"
        log(
            "webhooks: outbox \(drainText); \(events) message.created events written for \(stored) messages stored, "
                + "\(outcome.accepted) accepted by the receiver, \(outcome.missing) missing, \(outcome.duplicates) "
                + "duplicates, \(outcome.badSignatures) bad signatures, \(failedText) failed for good")
        return (outcome, problems + verdict.problems)
    }
}
