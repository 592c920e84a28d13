import SwitchboardJSON
import SwitchboardSystem

/// The runs of `loadtest bench-attachments`: the upload load alone (its
/// throughput, the gateway's CPU and its peak RSS), and the `fanout`
/// scenario with uploads beside it in alternate windows.
struct AttachmentsBench {
    let context: BenchContext
    let gateway: GatewayProcess
    let concurrency: Int

    /// `loadtest uploader` against the gateway, on the harness's core, as a child.
    func startUploader(size: Int, seconds: Int, output: String, extra: [String] = []) throws -> SpawnedProcess {
        try TextFile.write(output, "")
        return try SpawnedProcess(
            [
                "taskset", "-c", "1", context.binary("loadtest"), "uploader", String(gateway.port), String(seconds),
                "--jwt-secret", context.secret, "--concurrency", String(concurrency), "--size", String(size),
            ] + extra, output: .file(output))
    }

    /// Waits for the uploader (sampling the gateway's RSS every 100 ms meanwhile) and reads its counts.
    func finish(_ uploader: SpawnedProcess, output: String, peakKiB: inout Int) throws -> UploadCounts {
        let deadline = DriveClock.monotonicSeconds() + 600
        while uploader.poll() == nil {
            if let rss = ProcessFacts.residentKiB(gateway.pid) { peakKiB = max(peakKiB, rss) }
            guard DriveClock.monotonicSeconds() < deadline else {
                uploader.stop(timeoutSeconds: 1)
                throw DriveError("the uploader did not finish (its output: \(output))")
            }
            ThisProcess.sleep(milliseconds: 100)
        }
        guard let line = BenchJSON.lines((try? TextFile.read(output)) ?? "").last else {
            throw DriveError(
                "the uploader printed no counts (exit \(uploader.exit.map(\.description) ?? "?"); \(output))")
        }
        return UploadCounts(json: line)
    }

    /// The upload load alone: throughput, the gateway's CPU per MB and its peak RSS.
    func throughput(label: String, size: Int, seconds: Int) throws -> UploadRun {
        try DatabaseCommands.settle(context.databaseURL)
        let output = TextFile.join(context.work, "uploader-\(label).out")
        var run = UploadRun(label: label, size: size)
        run.idleRSSKiB = ProcessFacts.residentKiB(gateway.pid) ?? 0
        var peak = run.idleRSSKiB
        let cpuBefore = ProcessCPU.seconds(gateway.pid) ?? 0
        let sampler = CPUSampler(named: [("gateway", "switchboard serve"), ("uploader", "loadtest uploader")])
        let uploader = try startUploader(size: size, seconds: seconds, output: output)
        run.counts = try sampler.measure { () throws in try finish(uploader, output: output, peakKiB: &peak) }
        run.cores = sampler.cores()
        run.gatewayCPUSeconds = (ProcessCPU.seconds(gateway.pid) ?? cpuBefore) - cpuBefore
        run.peakRSSKiB = peak
        let counts = run.counts
        context.log(
            "\(label): \(counts.created) uploads in \(PythonFormat.fixed(counts.seconds, 1)) s = "
                + "\(PythonFormat.fixed(counts.uploadsPerSecond, 1)) uploads/s, "
                + "\(PythonFormat.fixed(counts.megabytesPerSecond, 1)) MB/s, p50 \(PythonFormat.fixed(counts.p50Ms, 1)) ms, "
                + "p99 \(PythonFormat.fixed(counts.p99Ms, 1)) ms; refused 503 \(counts.refused503), 429 "
                + "\(counts.refused429), other \(counts.other) \(counts.firstOther), failed \(counts.failed); "
                + "gateway RSS \(run.idleRSSKiB / 1024) -> peak \(peak / 1024) MiB, CPU "
                + "\(PythonFormat.fixed(run.gatewayCPUSeconds, 2)) s; CPU per upload: "
                + ["gateway", "postgres", "uploader"].map {
                    "\($0) \(PythonFormat.fixed(run.microsecondsPerUpload($0), 0)) µs"
                }
                .joined(separator: ", "))
        return run
    }

    /// The fanout scenario with its latency split by alternating windows, the
    /// uploaders (files of `uploadSize` bytes) working in the B windows only;
    /// without `uploadSize` an A/A run.
    func fanout(
        label: String, seconds: Int, uploadSize: Int?, shape: AttachmentsResults.Shape, windows: Windows
    )
        throws -> FanoutRun
    {
        try DatabaseCommands.settle(context.databaseURL)
        let directory = try context.directory(label)
        let output = TextFile.join(context.work, "uploader-\(label).out")
        var uploader: SpawnedProcess?
        if let uploadSize {
            // It creates its sessions first (a second or two), then uploads for the run and a little more.
            uploader = try startUploader(
                size: uploadSize, seconds: seconds + 6, output: output,
                extra: ["--alternate", String(windows.seconds)])
            DriveClock.sleep(seconds: 3)
        }
        let report = try context.fanout(
            gateway, sessions: shape.sessions, subscribers: shape.subscribers, rate: shape.rate, seconds: seconds,
            directory: directory,
            extra: ["--alternate", String(windows.seconds), "--alternate-settle", String(windows.settle)])
        var run = FanoutRun(label: label, uploadSize: uploadSize)
        if let uploader {
            var peak = 0
            run.uploads = try finish(uploader, output: output, peakKiB: &peak)
        }
        run.passed = report["passed"]?.boolValue
        run.aP99Ms = report.latency("send_to_delivery_a", "p99_ms")
        run.bP99Ms = report.latency("send_to_delivery_b", "p99_ms")
        run.aP50Ms = report.latency("send_to_delivery_a", "p50_ms")
        run.bP50Ms = report.latency("send_to_delivery_b", "p50_ms")
        run.aCount = report.latency("send_to_delivery_a", "count").map { Int($0) }
        run.bCount = report.latency("send_to_delivery_b", "count").map { Int($0) }
        run.p99Ms = report.latency("send_to_delivery", "p99_ms")
        run.deliveriesPerSecond = report.figure("deliveries_per_second")
        context.log(
            "\(label): A windows p99 \(PythonFormat.fixed(run.aP99Ms ?? .nan, 2)) ms (\(run.aCount ?? 0) deliveries), "
                + "B windows p99 \(PythonFormat.fixed(run.bP99Ms ?? .nan, 2)) ms (\(run.bCount ?? 0)): "
                + BenchFormat.percent(run.change)
                + (run.uploads.map {
                    " beside \($0.created) uploads in the B windows (\(PythonFormat.fixed($0.megabytesPerSecond, 1)) MB/s "
                        + "over the run, \($0.cut) cut as A windows began)"
                } ?? " (no uploads: A/A)"))
        return run
    }

    /// The alternating windows of the fanout runs.
    struct Windows {
        var seconds: Double
        var settle: Double
    }
}
