import SwitchboardJSON

/// `loadtest bench-abuse`: the `fanout` scenario's latency with and without
/// one abusive client address beside it (scripts/bench-abuse;
/// docs/benchmarks.md, "Abuse").
public enum AbuseDriver {
    static let shape: AbuseResults.Shape = (sessions: 10, subscribers: 100, rate: 10500)  // scripts/bench's fanout
    static let quickShape: AbuseResults.Shape = (sessions: 5, subscribers: 20, rate: 1000)

    public static let usage = """
        usage: loadtest bench-abuse [--seconds S] [--repeats N] [--rate M] [--abuse-rate R]
                                    [--interleave-seconds I] [--quick] SET-UP

        One gateway (one event loop) on core 0 with the default per-address limits, only
        127.0.0.1 (the harness, core 1) exempt. Each repeat: the fanout scenario (10 sessions x
        100 subscribers at 10,500 msg/s, or M msg/s) alone, then again while 127.0.0.2 opens R
        connections per second (default 1,000), each a slow-loris dripping one header byte every
        5 s (`loadtest abuser`, on the harness's core in the idle scheduling class); then the
        scenario for I seconds (default 60, at least 10) with its latency split by 5-s windows
        taken in turn, A B B A A B B A, the abuser attacking only in the B ones, and once more
        with no abuser (A/A), which shows the method's noise. Writes results.json and each run's
        reports to --out, and the "Abuse" section of docs/benchmarks.md (target: the p99 changes
        by under 20%). Exits 1 when a correctness check fails. Defaults: 10 s per run, 3 repeats.
        --quick: a small shape, one repeat, 20-s interleaved runs, prints the section instead.
        --check only checks the flags.

        """ + BenchContext.setUpUsage

    struct Options {
        var flags: DriverFlags
        var quick: Bool
        var seconds, repeats, abuseRate, interleaveSeconds: Int
        var shape: AbuseResults.Shape
    }

    public static func main(_ arguments: [String]) -> Int32 {
        BenchMain.run(arguments, usage: usage, tag: "bench-abuse", parse: parse, run: run)
    }

    static func parse(_ arguments: [String]) throws(DriverFlags.UsageError) -> Options {
        let flags = try DriverFlags(
            arguments,
            options: BenchContext.setUpOptions + ["seconds", "repeats", "rate", "abuse-rate", "interleave-seconds"],
            switchNames: ["quick", "check"])
        let quick = flags.has("quick")
        var shape = quick ? quickShape : shape
        let rate = try flags.int("rate", default: 0)
        if rate != 0 { shape.rate = rate }
        let interleave = try flags.int("interleave-seconds", default: quick ? 20 : 60)
        // Two 5-s windows at least, so both sides of the interleaved runs are measured.
        guard interleave >= 10 else {
            throw DriverFlags.UsageError(description: "--interleave-seconds must be at least 10 (two 5-s windows)")
        }
        return Options(
            flags: flags, quick: quick, seconds: try flags.int("seconds", default: quick ? 3 : 10),
            repeats: try flags.int("repeats", default: quick ? 1 : 3),
            abuseRate: try flags.int("abuse-rate", default: 1000), interleaveSeconds: interleave, shape: shape)
    }

    /// False when a correctness check failed in any run.
    static func run(_ options: Options, log: DriveLog) throws -> Bool {
        let context = try BenchContext(flags: options.flags, log: log)
        var results = AbuseResults(
            command: context.command, started: BenchmarksDoc.utcMinute(), repeats: options.repeats,
            seconds: options.seconds, shape: options.shape, abuseRate: options.abuseRate,
            interleaveSeconds: options.interleaveSeconds)
        let gateway = try context.gateway(serverExtra: "ip_limit_exempt = [\"127.0.0.1/32\", \"::1/128\"]")
        defer { gateway.stop() }
        let bench = AbuseBench(context: context, gateway: gateway, shape: options.shape, abuseRate: options.abuseRate)
        for repeat_ in stride(from: 1, through: options.repeats, by: 1) {
            let alone = try bench.separate(label: "alone-\(repeat_)", seconds: options.seconds, abuse: false)
            let abused = try bench.separate(label: "abused-\(repeat_)", seconds: options.seconds, abuse: true)
            results.pairs.append((alone, abused))
            let window = options.interleaveSeconds
            let control = try bench.interleaved(label: "interleaved-aa-\(repeat_)", seconds: window, abuse: false)
            let within = try bench.interleaved(label: "interleaved-abused-\(repeat_)", seconds: window, abuse: true)
            results.interleaved.append((control, within))
        }
        gateway.stop()
        try context.publish(
            results: results.json, section: AbuseSection.render(results), name: "bench-abuse", title: "Abuse",
            quick: options.quick)
        let failed = results.failed
        if !failed.isEmpty { log("correctness checks failed in \(failed)") }
        return failed.isEmpty
    }
}
