import SwitchboardSystem

#if canImport(Glibc)
import Glibc
#endif

extension WebhooksBench {
    /// The interleaved runs' windows.
    struct Windows {
        var seconds: Double
        var settle: Double
        var count: Int
    }

    /// What the writer stores with and without the endpoint in one run:
    /// `conversations` at `shape` (more than the machine stores), split by
    /// windows of the wall clock taken A B B A (`loadtest --alternate`, so
    /// the harness splits its latency by the same windows). With
    /// `switching`, at each window's start the endpoint is disabled (A) or
    /// enabled (B), as `PATCH /api/v1/webhooks/{id}` would but in the
    /// database (`setEnabled`); without, it stays disabled (A/A). Each window
    /// is measured from the end of its settling time to its end: the messages
    /// stored (`storedCount`), the gateway's CPU and PostgreSQL's (/proc), and
    /// the outbox's depth at its end.
    func toggleRun(label: String, switching: Bool, shape: WebhooksResults.Shape, windows: Windows) throws -> ToggleRun {
        // Drained first, while the endpoint is enabled: the dispatcher claims for enabled endpoints only.
        try settleForRun()
        try setEnabled(false)
        var enabled = false
        defer {
            // The other runs expect it enabled.
            if !enabled { try? setEnabled(true) }
        }
        let directory = try context.directory(label)
        // One window more than measured: the traffic starts between two windows.
        let seconds = Int((windows.seconds * Double(windows.count + 2)).rounded(.up))
        let harness = try startHarness(
            shape, seconds: seconds, directory: directory,
            extra: [
                "--alternate", PythonFormat.repr(windows.seconds), "--alternate-settle",
                PythonFormat.repr(windows.settle),
            ])
        var run = ToggleRun(label: label, switching: switching, shape: shape, seconds: seconds)
        let initial = storedCount ?? 0
        let setUp = DriveClock.monotonicSeconds() + 120
        while harness.isRunning && (storedCount ?? 0) <= initial && DriveClock.monotonicSeconds() < setUp {
            DriveClock.sleep(seconds: 0.05)
        }
        let trafficStart = DriveClock.wallSeconds()
        let trafficEnd = trafficStart + Double(seconds)
        var boundary = ((trafficStart + 0.5) / windows.seconds).rounded(.down) * windows.seconds + windows.seconds
        let nanoseconds = UInt64(windows.seconds * 1e9)
        while run.windows.count < windows.count && boundary + windows.seconds <= trafficEnd && harness.isRunning {
            Self.sleep(untilWall: boundary)
            let side = AlternatingWindows.side(
                ofWall: UInt64((boundary + windows.seconds / 2) * 1e9), windowNanoseconds: nanoseconds)
            if switching && enabled != (side == .b) {
                try setEnabled(side == .b)
                enabled = side == .b
            }
            Self.sleep(untilWall: boundary + windows.settle)
            let start = measure()
            Self.sleep(untilWall: boundary + windows.seconds - 0.02)
            let end = measure()
            run.windows.append(
                ToggleRun.Window(
                    side: side, seconds: end.at - start.at, stored: end.stored - start.stored,
                    gatewayCPUSeconds: end.gateway - start.gateway,
                    postgresCPUSeconds: Self.used(from: start.postgres, to: end.postgres),
                    pendingEnd: WebhookOutbox.pending(context.databaseURL)))
            boundary += windows.seconds
        }
        let report = try finishHarness(harness, directory: directory, seconds: Double(seconds) + 120)
        if !enabled {
            try setEnabled(true)
            enabled = true
        }
        run.passed = report["correctness"]?["failures"]?.doubleValue == 0
        run.aP99Ms = report.latency("send_to_delivery_a", "p99_ms")
        run.bP99Ms = report.latency("send_to_delivery_b", "p99_ms")
        let (a, b) = (run.side(.a), run.side(.b))
        context.log(
            "\(label): A windows (endpoint disabled) \(PythonFormat.fixed(a.storedPerSecond, 0)) msg/s, "
                + "B windows (\(switching ? "enabled" : "disabled too: A/A")) \(PythonFormat.fixed(b.storedPerSecond, 0)) "
                + "msg/s: \(BenchFormat.percent(run.change)); gateway \(PythonFormat.fixed(a.gatewayMicrosPerMessage, 1)) / "
                + "\(PythonFormat.fixed(b.gatewayMicrosPerMessage, 1)) us/msg, PostgreSQL "
                + "\(PythonFormat.fixed(a.postgresMicrosPerMessage, 1)) / \(PythonFormat.fixed(b.postgresMicrosPerMessage, 1)) "
                + "us/msg; \(a.windows) + \(b.windows) windows; harness \(run.passed == true ? "passed" : "FAILED")")
        return run
    }

    /// In the database, not with `PATCH /api/v1/webhooks/{id}`: while the
    /// gateway's event loop is saturated (this shape) its API answers after
    /// seconds (docs/benchmarks.md, "Webhooks"), and a toggle must land at
    /// its window's start. The API's own path is tested in `WebhooksAPITests`.
    private func setEnabled(_ enabled: Bool) throws(DriveError) {
        try WebhookOutbox.setEnabled(context.databaseURL, endpoint: endpoint.id, enabled: enabled)
    }

    /// With the outbox drained, every `message.created` event written for
    /// the workspace must be in the receiver's journal, accepted with a good
    /// signature; none may have failed for good.
    func correctness() throws -> WebhooksCorrectness {
        var result = WebhooksCorrectness()
        result.drained =
            WebhookOutbox.waitUntilDrained(context.databaseURL, timeoutSeconds: drainTimeout, stallSeconds: 60) != nil
        let ids = try WebhookOutbox.messageEventIDs(context.databaseURL, workspace: workspace)
        result.events = ids.count
        let journal = receiver.journal
        let missing = journal.missing(ids)
        result.accepted = journal.accepted.count
        result.missing = missing.count
        result.missingSample = Array(missing.prefix(5))
        result.duplicates = journal.duplicates
        result.badSignatures = journal.badSignatures
        result.failedDeliveries = WebhookOutbox.failed(context.databaseURL)
        context.log(
            "correctness: \(ids.count) message.created events written, \(journal.accepted.count) accepted by the "
                + "receiver, \(missing.count) missing, \(journal.duplicates) duplicates, \(journal.badSignatures) bad "
                + "signatures, \(result.failedDeliveries.map(String.init) ?? "?") failed deliveries; outbox "
                + "\(result.drained ? "drained" : "NOT drained")")
        return result
    }

    struct Measurement {
        var at: Double
        var stored: Double
        var gateway: Double
        var postgres: [Int32: Int]
    }

    private func measure() -> Measurement {
        Measurement(
            at: DriveClock.monotonicSeconds(), stored: storedCount ?? .nan,
            gateway: ProcessCPU.seconds(gateway.pid) ?? .nan, postgres: Self.postgresTicks())
    }

    /// CPU ticks of every process named postgres, by pid.
    static func postgresTicks() -> [Int32: Int] {
        var ticks: [Int32: Int] = [:]
        for pid in CPUSampler.processes() {
            guard let text = try? TextFile.read("/proc/\(pid)/stat"), let (name, used) = CPUSampler.parseStat(text),
                name == "postgres"
            else { continue }
            ticks[pid] = used
        }
        return ticks
    }

    /// CPU-seconds used between two readings by the processes alive at both.
    static func used(from before: [Int32: Int], to after: [Int32: Int]) -> Double {
        var ticks = 0
        for (pid, used) in after { if let earlier = before[pid] { ticks += max(0, used - earlier) } }
        return Double(ticks) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func sleep(untilWall target: Double) {
        DriveClock.sleep(seconds: target - DriveClock.wallSeconds())
    }
}
