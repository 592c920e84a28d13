/// `loadtest bench-attachments`: uploads/s and MB/s of 50 concurrent
/// uploaders, the gateway's peak RSS under them, and the `fanout` scenario's
/// p99 with and without that load beside it (scripts/bench-attachments;
/// docs/benchmarks.md, "Attachments").
public enum AttachmentsDriver {
    /// scripts/bench's fanout shape at a fifth of its rate: at 10,500 msg/s the gateway's core is
    /// saturated alone and its p99 moves by hundreds of ms between identical runs (docs/benchmarks.md,
    /// "Chat"), which no comparison can read; at 2,000 msg/s (200,000 deliveries/s) the p99 is the
    /// chat path's own, and what uploads take from it shows.
    static let shape: AttachmentsResults.Shape = (sessions: 10, subscribers: 100, rate: 2000)
    static let quickShape: AttachmentsResults.Shape = (sessions: 5, subscribers: 20, rate: 1000)
    static let sizes = [100 * 1024, 5 * 1024 * 1024]
    /// The gateway's default `attachments.max_write_bytes_per_second` (config/switchboard.toml).
    static let defaultPace = 2 << 20
    /// The gateway's in-flight budget in these runs: the default (docs/attachments.md).
    static let inFlightBudget = 64 * 1024 * 1024
    /// The interleaved runs' windows: long enough that a window holds many uploads of 100 KiB; the
    /// settling time covers what cut uploads left the gateway to store (a cut upload's queued pieces
    /// are dropped, so at most the piece each worker is writing: 4 x 256 KiB at 2 MiB/s, 0.5 s).
    static let windows = AttachmentsBench.Windows(seconds: 10, settle: 2.5)
    static let quickWindows = AttachmentsBench.Windows(seconds: 2, settle: 0.5)

    public static let usage = """
        usage: loadtest bench-attachments [--seconds S] [--fanout-seconds F] [--repeats N] [--concurrency C] [--pace B]
                                          [--quick] SET-UP

        A gateway (one event loop) on core 0 with the default attachment limits, except the
        per-session quota and the upload rate, raised so that a benchmark can reach them
        (127.0.0.1 exempt from the per-address limits). First, on a gateway without the write
        pace (max_write_bytes_per_second = 0), the upload load alone for each
        file size (100 KiB, 5 MiB): C uploaders (default 50) on core 1, each uploading one PDF
        after another for S seconds (`loadtest uploader`): uploads/s, MB/s, upload p50/p99,
        the gateway's CPU-seconds per MB and its RSS at peak (sampled every 100 ms), which the
        in-flight budget (64 MiB) bounds, not the number of uploads. Then, on a gateway with the
        default pace (2 MiB/s; --pace B: B bytes/s, 0 none), N repeats (default 2) of three
        runs of the fanout scenario (10 sessions x 100 subscribers at 2,000 msg/s, F seconds,
        default 240) with its latency split by 10-s windows of the wall clock taken in turn,
        A B B A (`loadtest --alternate 10 --alternate-settle 2.5`): an A/A run with nothing
        beside it (the method's own noise), then one beside each upload load working in the
        B windows only (`loadtest uploader --alternate 10`, which resets its uploads as an A
        window begins). Writes results.json and each run's reports to --out, and the
        "Attachments" section of docs/benchmarks.md (target: the B windows' p99 within 20% of
        the A windows'). Exits 1 when a correctness check fails. Defaults: 10 s per upload run.
        --quick: a small shape, 3-s upload runs, 8-s fanout runs in 2-s windows, one repeat,
        prints the section instead. --check only checks the flags.

        """ + BenchContext.setUpUsage

    struct Options {
        var flags: DriverFlags
        var quick: Bool
        var seconds, fanoutSeconds, repeats, concurrency: Int
        var windows: AttachmentsBench.Windows
        /// `attachments.max_write_bytes_per_second` of the gateway beside the fanout; nil: its default.
        var pace: Int?
        var shape: AttachmentsResults.Shape
    }

    public static func main(_ arguments: [String]) -> Int32 {
        BenchMain.run(arguments, usage: usage, tag: "bench-attachments", parse: parse, run: run)
    }

    static func parse(_ arguments: [String]) throws(DriverFlags.UsageError) -> Options {
        let flags = try DriverFlags(
            arguments,
            options: BenchContext.setUpOptions + ["seconds", "fanout-seconds", "repeats", "concurrency", "pace"],
            switchNames: ["quick", "check"])
        let quick = flags.has("quick")
        let options = Options(
            flags: flags, quick: quick, seconds: try flags.int("seconds", default: quick ? 3 : 10),
            // 240 s: a side's p99 is its few slowest moments, and in 120-s runs an A/A run's two
            // sides differed by as much as the target (-22%; docs/attachments.md).
            fanoutSeconds: try flags.int("fanout-seconds", default: quick ? 8 : 240),
            repeats: try flags.int("repeats", default: quick ? 1 : 2),
            concurrency: try flags.int("concurrency", default: quick ? 10 : 50),
            windows: quick ? quickWindows : windows,
            pace: flags.string("pace") != nil ? try flags.int("pace", default: 0) : nil,
            shape: quick ? quickShape : shape)
        guard options.seconds > 0, options.repeats > 0, options.concurrency > 0 else {
            throw DriverFlags.UsageError(description: "--seconds, --repeats and --concurrency must be above 0")
        }
        guard Double(options.fanoutSeconds) >= options.windows.seconds * 4 else {
            throw DriverFlags.UsageError(
                description: "--fanout-seconds must hold at least four windows (\(Int(options.windows.seconds * 4)) s)")
        }
        return options
    }

    /// The gateway's [attachments] table for the bench: defaults but for what a benchmark must exceed.
    static let gatewayConfig = """
        [attachments]
        max_in_flight_bytes = \(inFlightBudget)
        session_quota_bytes = 1099511627776
        uploads_per_minute = 1000000
        """

    /// False when a correctness check failed in any run.
    static func run(_ options: Options, log: DriveLog) throws -> Bool {
        let context = try BenchContext(flags: options.flags, log: log)
        var results = AttachmentsResults(
            command: context.command, started: BenchmarksDoc.utcMinute(), seconds: options.seconds,
            fanoutSeconds: options.fanoutSeconds, windowSeconds: options.windows.seconds,
            settleSeconds: options.windows.settle, concurrency: options.concurrency, inFlightBudget: inFlightBudget,
            pace: options.pace ?? defaultPace,
            shape: options.shape)
        let exempt = "ip_limit_exempt = [\"127.0.0.1/32\", \"::1/128\"]"
        // Capacity: the uploads alone on a gateway without the write pace.
        let unpaced = try context.gateway(
            name: "unpaced", serverExtra: exempt, extra: gatewayConfig + "\nmax_write_bytes_per_second = 0")
        let capacity = AttachmentsBench(context: context, gateway: unpaced, concurrency: options.concurrency)
        for size in sizes {
            results.throughput.append(
                try capacity.throughput(label: "uploads-\(size / 1024)k", size: size, seconds: options.seconds))
        }
        unpaced.stop()
        // The chat beside uploads: the default pace (attachments.max_write_bytes_per_second).
        let paced = options.pace.map { "\nmax_write_bytes_per_second = \($0)" } ?? ""
        let gateway = try context.gateway(serverExtra: exempt, extra: gatewayConfig + paced)
        defer { gateway.stop() }
        results.writeback = HostWriteback.now()
        let bench = AttachmentsBench(context: context, gateway: gateway, concurrency: options.concurrency)
        for repeat_ in stride(from: 1, through: options.repeats, by: 1) {
            let control = try bench.fanout(
                label: "fanout-aa-\(repeat_)", seconds: options.fanoutSeconds, uploadSize: nil, shape: options.shape,
                windows: options.windows)
            var beside: [FanoutRun] = []
            for size in sizes {
                beside.append(
                    try bench.fanout(
                        label: "fanout-uploads-\(size / 1024)k-\(repeat_)", seconds: options.fanoutSeconds,
                        uploadSize: size, shape: options.shape, windows: options.windows))
            }
            results.repeats.append((control, beside))
        }
        gateway.stop()
        try context.publish(
            results: results.json, section: AttachmentsSection.render(results), name: "bench-attachments",
            title: "Attachments", quick: options.quick)
        let failed = results.failed
        if !failed.isEmpty { log("correctness checks failed in \(failed)") }
        return failed.isEmpty
    }
}
