import SwitchboardJSON

/// `loadtest bench-webhooks`: webhooks delivered per second to a local
/// keep-alive receiver under the `conversations` load, the latency from an
/// event's commit to its delivery, and the writer's stored messages/s with
/// and without an endpoint subscribed to `message.created`, in one run
/// (scripts/bench-webhooks; docs/benchmarks.md, "Webhooks").
public enum WebhooksDriver {
    /// More than the machine stores (the routing bench's throughput runs store about 18,600 msg/s per
    /// gateway with two side by side); and a rate every part keeps up with.
    static let shape: WebhooksResults.Shape = (sessions: 500, operators: 2, rate: 40000)
    static let steadyShape: WebhooksResults.Shape = (sessions: 500, operators: 2, rate: 2000)
    /// Small enough that every outbox drains within seconds, so that a smoke test stays under a minute.
    static let quickShape: WebhooksResults.Shape = (sessions: 50, operators: 2, rate: 1000)
    static let quickSteadyShape: WebhooksResults.Shape = (sessions: 50, operators: 2, rate: 200)
    static let windows = WebhooksBench.Windows(seconds: 10, settle: 2, count: 8)
    static let quickWindows = WebhooksBench.Windows(seconds: 1.5, settle: 0.4, count: 4)

    public static let usage = """
        usage: loadtest bench-webhooks [--seconds S] [--rate R] [--steady-rate R2] [--windows N]
                                       [--window-seconds W] [--repeats K] [--parts LIST]
                                       [--hand-off on|off] [--quick] SET-UP

        First the receiver alone: `loadtest webhook-sender` (8 keep-alive connections, core 0)
        against `loadtest webhook-receiver` (core 1) for 5 s: webhooks/s and the receiver's CPU
        per webhook, so that what follows is known not to be the receiver's limit.

        Then a gateway (one event loop) on core 0 with `[webhooks] allow_private_targets = true`
        and the other webhook settings at their defaults, PostgreSQL (durable) unpinned, the
        harness and the receiver on core 1; an admin creates an endpoint
        (POST /api/v1/webhooks) for message.created in the workspace the `conversations`
        scenario writes to (`loadtest --workspace`), pointing at the receiver, which checks
        every signature with the endpoint's secret. Runs:
          steady     conversations (500 sessions x 2 operators) at R2 msg/s (2,000) for S s (30):
                     commit-to-delivery p50/p99 (the event's created_at to its first 2xx, from
                     the receiver), delivered/s against stored/s
          capacity   the same at R msg/s (40,000: more than the machine stores) for S s: whether
                     delivery keeps up with what the writer stores (delivered/s >= stored/s; the
                     outbox, `SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'`,
                     sampled every second, must not grow by a second of stored messages over
                     the traffic), and how long the outbox takes to drain after it
          with/without  K repeats (1) of the same load in windows of W s (10) taken A B B A
                     (N windows measured, a multiple of 4: 8; the first 2 s of each left out): the endpoint
                     disabled in the A windows and enabled in the B windows (in the database), the
                     stored messages/s of each side (sessions' last_seq) and the CPU-
                     seconds per message of the gateway and PostgreSQL (/proc); then an A/A run
                     with the endpoint disabled throughout: the method's own noise. Target:
                     the two sides within 10%.
        Between runs the outbox drains (as long as it keeps going down, at most an hour) and the
        tables are vacuumed. At the end, with the
        outbox drained, every message.created event written must be in the receiver's journal,
        accepted with a good signature (duplicates are reported); fails otherwise, or on a bad
        signature, a failed delivery, or a harness correctness failure.

        Writes results.json, each run's harness report and the receiver's journal and summary
        to --out, and the "Webhooks" section of docs/benchmarks.md. About 7 minutes (more when an
        outbox drains slowly).
        --parts LIST: which of steady, capacity, toggles to run (comma-separated; all by
        default; the correctness check always runs). --hand-off off: the gateway with
        `[webhooks] hand_off = false`, every delivery claimed (to compare what claims cost).
        --hold-rounds N: the gateway with `[webhooks] hold_rounds = N` (1-64; how many rounds
        of requests it holds, hence how many a claim takes at once). --per-endpoint N: the
        gateway with `[webhooks] max_concurrent_per_endpoint = N` (1-1024). --dispatch-threads N:
        the gateway with `[webhooks] threads = N` (1-64). --pass-interval MS: the gateway with
        `[webhooks] backlog_pass_interval_ms = MS` (0-1000; 0: an expander's pass per commit).
        Each of these prints the section instead of writing it, as --quick does.
        Each delivery run also reports the CPU per delivered webhook of the gateway,
        PostgreSQL and the receiver, over the traffic and over the drain after it.
        --quick: 50 sessions, 200 and 1,000 msg/s, 5-s runs, 4 windows of 1.5 s, a 1-s receiver
        run; prints the section instead (under a minute). --check only checks the flags.

        """ + BenchContext.setUpUsage

    struct Options {
        var flags: DriverFlags
        var quick: Bool
        var seconds: Int
        var shape, steadyShape: WebhooksResults.Shape
        var windows: WebhooksBench.Windows
        var repeats: Int
        var receiverSeconds: Double
        var parts: Set<String>
        var handOff: Bool
        /// `webhooks.hold_rounds` when given (the gateway's default otherwise).
        var holdRounds: Int?
        /// `webhooks.max_concurrent_per_endpoint` when given.
        var perEndpoint: Int?
        /// `webhooks.threads` when given.
        var dispatchThreads: Int?
        /// `webhooks.backlog_pass_interval_ms` when given.
        var passInterval: Int?
    }

    static let allParts: Set<String> = ["steady", "capacity", "toggles"]

    public static func main(_ arguments: [String]) -> Int32 {
        BenchMain.run(arguments, usage: usage, tag: "bench-webhooks", parse: parse, run: run)
    }

    static func parse(_ arguments: [String]) throws(DriverFlags.UsageError) -> Options {
        let flags = try DriverFlags(
            arguments,
            options: BenchContext.setUpOptions + [
                "seconds", "rate", "steady-rate", "windows", "window-seconds", "repeats", "parts", "hand-off",
                "hold-rounds", "per-endpoint", "dispatch-threads", "pass-interval",
            ],
            switchNames: ["quick", "check"])
        let quick = flags.has("quick")
        var shape = quick ? quickShape : shape
        var steady = quick ? quickSteadyShape : steadyShape
        shape.rate = try flags.int("rate", default: shape.rate)
        steady.rate = try flags.int("steady-rate", default: steady.rate)
        let parts = flags.string("parts").map { Set($0.split(separator: ",").map(String.init)) } ?? allParts
        guard !parts.isEmpty, parts.isSubset(of: allParts) else {
            throw DriverFlags.UsageError(description: "--parts takes steady, capacity and toggles, comma-separated")
        }
        let handOffText = flags.string("hand-off") ?? "on"
        guard handOffText == "on" || handOffText == "off" else {
            throw DriverFlags.UsageError(description: "--hand-off takes on or off")
        }
        let handOff = handOffText == "on"
        let holdRounds = try flags.int("hold-rounds", in: 1...64)
        let perEndpoint = try flags.int("per-endpoint", in: 1...1024)
        let dispatchThreads = try flags.int("dispatch-threads", in: 1...64)
        let passInterval = try flags.int("pass-interval", in: 0...1000)
        var windows = quick ? quickWindows : windows
        windows.count = try flags.int("windows", default: windows.count)
        windows.seconds = try flags.double("window-seconds", default: windows.seconds)
        windows.settle = min(windows.settle, windows.seconds / 4)
        let options = Options(
            flags: flags, quick: quick, seconds: try flags.int("seconds", default: quick ? 5 : 30), shape: shape,
            steadyShape: steady, windows: windows, repeats: try flags.int("repeats", default: 1),
            receiverSeconds: quick ? 1 : 5, parts: parts, handOff: handOff, holdRounds: holdRounds,
            perEndpoint: perEndpoint, dispatchThreads: dispatchThreads, passInterval: passInterval)
        guard options.seconds >= 4, shape.rate > 0, steady.rate > 0, options.repeats > 0 else {
            throw DriverFlags.UsageError(
                description: "--seconds must be 4 or more, --rate, --steady-rate, --repeats above 0")
        }
        // Any four windows in a row of A B B A A B B A hold two of each side.
        guard windows.count >= 4, windows.count % 4 == 0, windows.seconds >= 1 else {
            throw DriverFlags.UsageError(description: "--windows must be a multiple of 4, --window-seconds 1 or more")
        }
        return options
    }

    /// The gateway's [webhooks] table: the receiver is on 127.0.0.1.
    static let gatewayConfig = """
        [webhooks]
        allow_private_targets = true
        """

    /// False when a correctness check failed.
    static func run(_ options: Options, log: DriveLog) throws -> Bool {
        let context = try BenchContext(flags: options.flags, log: log)
        var results = WebhooksResults(
            command: context.command, started: BenchmarksDoc.utcMinute(), windowSeconds: options.windows.seconds,
            settleSeconds: options.windows.settle)
        results.receiver = try WebhooksBench.receiverCapacity(
            context: context, seconds: options.receiverSeconds, connections: 8)
        let workspace = HarnessRuns.newWorkspace()
        let gateway = try context.gateway(
            extra: gatewayConfig + (options.handOff ? "" : "\nhand_off = false\n")
                + (options.holdRounds.map { "\nhold_rounds = \($0)\n" } ?? "")
                + (options.perEndpoint.map { "\nmax_concurrent_per_endpoint = \($0)\n" } ?? "")
                + (options.dispatchThreads.map { "\nthreads = \($0)\n" } ?? "")
                + (options.passInterval.map { "\nbacklog_pass_interval_ms = \($0)\n" } ?? ""))
        defer { gateway.stop() }
        try WebhookAPI.ensureWorkspace(workspace, databaseURL: context.databaseURL)
        let token = WebhookAPI.adminToken(workspace: workspace, secret: context.secret)
        let port = try LocalPorts.free()
        let endpoint = try WebhookAPI.create(
            port: gateway.port, token: token, url: "http://127.0.0.1:\(port)/webhook", events: ["message.created"],
            description: "bench-webhooks")
        let receiver = try WebhookReceiverProcess(
            binDirectory: context.binDirectory, port: port, secret: endpoint.secret,
            journalPath: TextFile.join(context.out, "receiver.journal"),
            logPath: TextFile.join(context.out, "receiver.log"),
            summaryPath: TextFile.join(context.out, "receiver.json"),
            core: 1)
        defer { receiver.stop() }
        log("endpoint \(endpoint.id) for message.created in workspace \(workspace) -> \(receiver.url)")
        let bench = WebhooksBench(
            context: context, gateway: gateway, receiver: receiver, workspace: workspace, endpoint: endpoint,
            drainTimeout: options.quick ? 120 : 3600)
        if options.parts.contains("steady") {
            results.deliveries.append(
                try bench.deliveryRun(label: "steady", shape: options.steadyShape, seconds: options.seconds))
        }
        if options.parts.contains("capacity") {
            results.deliveries.append(
                try bench.deliveryRun(label: "capacity", shape: options.shape, seconds: options.seconds))
        }
        for repeat_ in 1...options.repeats where options.parts.contains("toggles") {
            results.toggles.append(
                try bench.toggleRun(
                    label: "with-without-\(repeat_)", switching: true, shape: options.shape, windows: options.windows))
            results.toggles.append(
                try bench.toggleRun(
                    label: "aa-\(repeat_)", switching: false, shape: options.shape, windows: options.windows))
        }
        results.correctness = try bench.correctness()
        receiver.stop()
        gateway.stop()
        try context.publish(
            results: results.json, section: WebhooksSection.render(results), name: "bench-webhooks", title: "Webhooks",
            quick: options.quick || options.parts != allParts || !options.handOff || options.holdRounds != nil
                || options.perEndpoint != nil || options.dispatchThreads != nil || options.passInterval != nil)
        let failed = results.failed
        if !failed.isEmpty { log("correctness checks failed in \(failed)") }
        return failed.isEmpty
    }
}
