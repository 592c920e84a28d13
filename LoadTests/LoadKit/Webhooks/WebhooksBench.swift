import SwitchboardCrypto
import SwitchboardJSON
import SwitchboardSystem

#if canImport(Glibc)
import Glibc
#endif

/// The runs of `loadtest bench-webhooks` against one gateway with one
/// endpoint, subscribed to `message.created` in the workspace the
/// `conversations` scenario writes to, pointing at a receiver on core 1.
struct WebhooksBench {
    let context: BenchContext
    let gateway: GatewayProcess
    let receiver: WebhookReceiverProcess
    let workspace: String
    let endpoint: WebhookEndpoint
    /// How long an outbox may take to drain after a run (it must go down at least once a minute).
    let drainTimeout: Double

    /// The receiver alone: `loadtest webhook-sender` on core 0 (no gateway
    /// there yet) against a receiver of its own on core 1 for `seconds`.
    static func receiverCapacity(context: BenchContext, seconds: Double, connections: Int) throws -> ReceiverCapacity {
        let port = try LocalPorts.free()
        let secret = "whsec_" + Base64.encode(SecureRandom.bytes(32))
        let receiver = try WebhookReceiverProcess(
            binDirectory: context.binDirectory, port: port, secret: secret,
            journalPath: TextFile.join(context.work, "receiver-capacity.journal"),
            logPath: TextFile.join(context.out, "receiver-capacity.log"),
            summaryPath: TextFile.join(context.out, "receiver-capacity.json"), core: 1)
        defer { receiver.stop() }
        let before = ProcessCPU.seconds(receiver.pid) ?? 0
        let run = try CapturedCommand.check([
            "taskset", "-c", "0", context.binary("loadtest"), "webhook-sender", String(port), String(seconds),
            "--connections", String(connections), "--secret", secret,
        ])
        var capacity = ReceiverCapacity(connections: connections)
        capacity.receiverCPUSeconds = (ProcessCPU.seconds(receiver.pid) ?? before) - before
        guard let line = BenchJSON.line(kind: "webhook-sender", in: run.standardOutput) else {
            throw DriveError("webhook-sender printed no counts: \(run.standardOutput.suffix(300))")
        }
        capacity.requests = Int(line["requests"]?.doubleValue ?? 0)
        capacity.seconds = line["seconds"]?.doubleValue ?? 0
        capacity.errors =
            Int(line["errors"]?.doubleValue ?? 0) + Int(line["statuses"]?.members.filter { $0.key != "200" }.count ?? 0)
        context.log(
            "receiver alone: \(capacity.requests) webhooks in \(PythonFormat.fixed(capacity.seconds, 1)) s over "
                + "\(connections) connections = \(PythonFormat.fixed(capacity.perSecond, 0))/s, receiver CPU "
                + "\(PythonFormat.fixed(capacity.microsPerRequest, 1)) us per webhook")
        return capacity
    }

    /// The conversations scenario in the bench's workspace, started on core 1; it writes its report to `directory`.
    func startHarness(
        _ shape: WebhooksResults.Shape, seconds: Int, directory: String, extra: [String] = []
    ) throws -> SpawnedProcess {
        let command =
            HarnessRuns.nicePrefix + ["taskset", "-c", "1"]
            + HarnessRuns.command(
                binDirectory: context.binDirectory, scenario: "conversations", url: gateway.url, secret: context.secret,
                databaseURL: context.databaseURL,
                options: [
                    "--workspace", workspace, "--gateway-pid", String(gateway.pid), "--sessions",
                    String(shape.sessions), "--operators", String(shape.operators), "--rate", String(shape.rate),
                    "--seconds", String(seconds), "--drain", "60", "--out", directory,
                ] + extra)
        return try SpawnedProcess(command, output: .file(TextFile.join(directory, "loadtest.txt")))
    }

    /// The harness's report once it has ended (within `seconds` more); its correctness says whether it passed.
    func finishHarness(_ harness: SpawnedProcess, directory: String, seconds: Double) throws -> JSONValue {
        if harness.wait(timeoutSeconds: seconds) == nil {
            harness.stop(timeoutSeconds: 5)
            throw DriveError("the harness did not finish (\(directory)/loadtest.txt)")
        }
        guard let report = HarnessRuns.report(TextFile.join(directory, "conversations.json")) else {
            throw DriveError(
                "the harness wrote no report (exit \(harness.exit.map(\.description) ?? "?"); \(directory))")
        }
        return report
    }

    /// Messages stored in the bench's workspace, read from PostgreSQL (the sum
    /// of its sessions' `last_seq`). Not the gateway's
    /// `switchboard_messages_stored_total`: while its event loop is saturated
    /// (the capacity shape) a scrape of /metrics goes unanswered for seconds.
    var storedCount: Double? {
        WebhookOutbox.storedMessages(context.databaseURL, workspace: workspace).map(Double.init)
    }

    /// Vacuumed and checkpointed, the webhook tables too, and the outbox empty.
    func settleForRun() throws {
        _ = WebhookOutbox.waitUntilDrained(context.databaseURL, timeoutSeconds: drainTimeout, stallSeconds: 60)
        try CapturedCommand.check([
            "psql", "-X", "-q", context.databaseURL, "-c", "VACUUM (ANALYZE) webhook_events, webhook_deliveries",
        ])
        try DatabaseCommands.settle(context.databaseURL)
    }

    struct Sample {
        var at: Double
        var stored: Double
        var delivered: Int
        var pending: Int?
        var cpu: ProcessesCPU
    }

    /// CPU used so far by the gateway, every postgres process and the receiver.
    struct ProcessesCPU {
        var gateway: Double
        var postgres: [Int32: Int]
        var receiver: Double

        /// CPU-seconds of each between `self` and `later`.
        func used(to later: ProcessesCPU) -> (gateway: Double, postgres: Double, receiver: Double) {
            (later.gateway - gateway, WebhooksBench.used(from: postgres, to: later.postgres), later.receiver - receiver)
        }
    }

    func processesCPU() -> ProcessesCPU {
        ProcessesCPU(
            gateway: ProcessCPU.seconds(gateway.pid) ?? .nan, postgres: Self.postgresTicks(),
            receiver: ProcessCPU.seconds(receiver.pid) ?? .nan)
    }

    /// `conversations` at `shape` for `seconds` with the endpoint enabled:
    /// sampled every second (the gateway's stored counter, the receiver's
    /// accepted events, the outbox's depth), then drained.
    func deliveryRun(label: String, shape: WebhooksResults.Shape, seconds: Int) throws -> DeliveryRun {
        try settleForRun()
        let directory = try context.directory(label)
        let before = receiver.reset()
        let harness = try startHarness(shape, seconds: seconds, directory: directory)
        var samples: [Sample] = []
        var probe = OutboxProbe(databaseURL: context.databaseURL)
        let deadline = DriveClock.monotonicSeconds() + Double(seconds) + 300
        while harness.isRunning && DriveClock.monotonicSeconds() < deadline {
            let at = DriveClock.monotonicSeconds()
            if let stored = storedCount, let stats = receiver.stats() {
                samples.append(
                    Sample(
                        at: at, stored: stored, delivered: stats.delivered,
                        pending: probe.sample(), cpu: processesCPU()))
            }
            DriveClock.sleep(seconds: max(0.05, at + 1 - DriveClock.monotonicSeconds()))
        }
        let report = try finishHarness(harness, directory: directory, seconds: 60)
        let left = WebhookOutbox.pending(context.databaseURL)
        let drainStart = DriveClock.monotonicSeconds()
        let (cpuBeforeDrain, deliveredBeforeDrain) = (processesCPU(), receiver.stats()?.delivered)
        let roles = BackendCPU(databaseURL: context.databaseURL)
        roles.start()
        let drained = WebhookOutbox.waitUntilDrained(
            context.databaseURL, timeoutSeconds: drainTimeout, stallSeconds: 60)
        let byRole = roles.stop()
        var run = DeliveryRun(label: label, shape: shape, seconds: seconds)
        run.drainSeconds = drained.map { _ in PythonFormat.round(DriveClock.monotonicSeconds() - drainStart, 2) }
        if let deliveredBeforeDrain, let after = receiver.stats()?.delivered {
            run.drainCost = DeliveryRun.Cost(
                deliveries: after - deliveredBeforeDrain, cpu: cpuBeforeDrain.used(to: processesCPU()),
                postgresByRole: byRole)
            context.log("\(label): PostgreSQL per delivery over the drain by role: \(run.drainCost!.rolesPerDelivery)")
        }
        run.pendingAfter = left
        run.passed = report["correctness"]?["failures"]?.doubleValue == 0
        run.harnessStoredPerSecond = report.figure("stored_per_second")
        run.chatP99Ms = report.latency("send_to_delivery", "p99_ms")
        Self.rates(samples, into: &run)
        let summary = receiver.reset()
        run.latencyCount = summary?.latencyCount ?? 0
        run.latencyP50Ms = summary?.latencyP50Ms
        run.latencyP90Ms = summary?.latencyP90Ms
        run.latencyP99Ms = summary?.latencyP99Ms
        run.latencyMaxMs = summary?.latencyMaxMs
        run.delivered = summary?.windowDelivered ?? 0
        if let summary, let before {
            run.duplicates = summary.duplicates - before.duplicates
            run.retries = summary.retries - before.retries
            run.badSignatures = summary.badSignatures - before.badSignatures
        }
        context.log(
            "\(label): stored \(PythonFormat.fixed(run.storedPerSecond ?? .nan, 0)) msg/s (harness "
                + "\(PythonFormat.fixed(run.harnessStoredPerSecond ?? .nan, 0))), delivered "
                + "\(PythonFormat.fixed(run.deliveredPerSecond ?? .nan, 0))/s over \(PythonFormat.fixed(run.windowSeconds, 1)) s; "
                + "outbox \(run.pendingStart.map(String.init) ?? "?") -> \(run.pendingEnd.map(String.init) ?? "?") "
                + "(peak \(run.pendingPeak.map(String.init) ?? "?")), "
                + "\(run.drainSeconds.map { "drained after \(PythonFormat.repr($0)) s" } ?? "NOT drained"); created_at to delivery p50 "
                + "\(PythonFormat.fixed(run.latencyP50Ms ?? .nan, 1)) ms, p99 \(PythonFormat.fixed(run.latencyP99Ms ?? .nan, 1)) ms; "
                + "harness \(run.passed == true ? "passed" : "FAILED")")
        return run
    }

    /// The rates over the traffic's steady part: from the first sample at
    /// least 2 s after the stored counter began to grow to the last sample
    /// at which it had grown.
    static func rates(_ samples: [Sample], into run: inout DeliveryRun) {
        run.pendingPeak = samples.compactMap(\.pending).max()
        guard let base = samples.first?.stored,
            let begin = samples.firstIndex(where: { $0.stored > base })
        else { return }
        var end = begin
        for index in samples.indices.dropFirst(begin) where samples[index].stored > samples[index - 1].stored {
            end = index
        }
        let warm = samples[begin].at + 2
        var first = samples.indices[begin...end].first { samples[$0].at >= warm } ?? begin
        if first >= end { first = begin }
        guard end > first else { return }
        let (a, b) = (samples[first], samples[end])
        run.windowSeconds = b.at - a.at
        run.storedPerSecond = (b.stored - a.stored) / run.windowSeconds
        run.deliveredPerSecond = Double(b.delivered - a.delivered) / run.windowSeconds
        run.trafficCost = DeliveryRun.Cost(deliveries: b.delivered - a.delivered, cpu: a.cpu.used(to: b.cpu))
        // The outbox is probed as often as its cost allows (`OutboxProbe`): the nearest probe to each end,
        // and no growth claimed from one probe read at both ends.
        let (startProbe, endProbe) = (nearestProbe(samples, first), nearestProbe(samples, end))
        run.pendingStart = startProbe.flatMap { samples[$0].pending }
        run.pendingEnd = endProbe == startProbe ? nil : endProbe.flatMap { samples[$0].pending }
    }

    /// The index of the sample with a probed depth nearest in time to `samples[index]`.
    static func nearestProbe(_ samples: [Sample], _ index: Int) -> Int? {
        let at = samples[index].at
        return samples.indices.filter { samples[$0].pending != nil }.min {
            abs(samples[$0].at - at) < abs(samples[$1].at - at)
        }
    }
}
