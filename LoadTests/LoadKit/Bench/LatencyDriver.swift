import SwitchboardJSON

/// `loadtest bench-latency`: the gateway's send-to-delivery latency against
/// its own durable commit, measured in the same run, shape by shape
/// (scripts/bench-latency; docs/benchmarks.md, "Latency").
public enum LatencyDriver {
    /// (sessions, subscribers per session, messages/s): the three shapes.
    static let shapes = [(10, 100, 10500), (50, 20, 10000), (500, 2, 10000)]
    static let quickShapes = [(5, 20, 1000), (50, 2, 1000)]
    static let rampRates = Array(stride(from: 2500, through: 25000, by: 2500))
    static let quickRampRates = [1000, 2000]

    public static let usage = """
        usage: loadtest bench-latency [--seconds S] [--repeats N] [--quick] SET-UP
               loadtest bench-latency --render DIR

        One gateway (one event loop) on core 0, the harness on core 1. For each fan-out shape
        (10 x 100 at 10,500 msg/s, 50 x 20 and 500 x 2 at 10,000 msg/s), each repeat: the
        harness's send-to-delivery p50/p99, the gateway's latency stages from /metrics, then
        writer-bench at the same rate and session count on core 0 with the gateway idle (the
        floor). Then a ramp (1,000 sessions x 2 operators, 2,500 msg/s up by 2,500 every 4 s to
        25,000): the highest rate whose p99 stays within that rate's floor + 5 ms. Writes
        results.json and each run's reports to --out, and the "Latency" section of
        docs/benchmarks.md (--quick: small shapes, one repeat, prints the section instead).
        Defaults: 8 s per shape, 3 repeats. --shapes 500x2,50x20 runs only those of the three
        shapes, --skip-ramp leaves the ramp out (for measuring one change; the section is then not
        written, only printed); --reads has the shapes' subscribers answer every message with `read`,
        as the widget and the console do, and --rate R runs the shapes at R msg/s (measurements: the
        section is then not written). --render DIR writes the section again from DIR's results.json.
        --check only checks the flags.

        """ + BenchContext.setUpUsage

    struct Options {
        var flags: DriverFlags
        var quick: Bool
        var seconds: Int
        var repeats: Int
        /// The shapes to run (all by default), and whether the ramp runs.
        var shapes: [(Int, Int, Int)]
        var ramp: Bool
        /// The shapes' subscribers answer each message with `read` (`--reads`).
        var reads: Bool

        /// A part left out: the run is a measurement, not the section.
        var partial: Bool {
            !ramp || reads || flags.string("rate") != nil || shapes.count != LatencyDriver.shapes.count
        }
    }

    public static func main(_ arguments: [String]) -> Int32 {
        BenchMain.run(arguments, usage: usage, tag: "bench-latency", parse: parse, run: run)
    }

    static func parse(_ arguments: [String]) throws(DriverFlags.UsageError) -> Options {
        let flags = try DriverFlags(
            arguments, options: BenchContext.setUpOptions + ["seconds", "repeats", "render", "shapes", "rate"],
            switchNames: ["quick", "check", "skip-ramp", "reads"])
        let quick = flags.has("quick")
        var chosen = quick ? quickShapes : shapes
        if let names = flags.string("shapes") {
            chosen = try names.split(separator: ",").map { name throws(DriverFlags.UsageError) in
                guard let shape = shapes.first(where: { "\($0.0)x\($0.1)" == name }) else {
                    throw DriverFlags.UsageError(description: "--shapes: \(name) is not one of 10x100, 50x20, 500x2")
                }
                return shape
            }
        }
        if flags.string("rate") != nil {
            let rate = try flags.int("rate", default: 0)
            chosen = chosen.map { ($0.0, $0.1, rate) }
        }
        return Options(
            flags: flags, quick: quick, seconds: try flags.int("seconds", default: quick ? 3 : 8),
            repeats: try flags.int("repeats", default: quick ? 1 : 3), shapes: chosen, ramp: !flags.has("skip-ramp"),
            reads: flags.has("reads"))
    }

    static func run(_ options: Options, log: DriveLog) throws -> Bool {
        if let directory = options.flags.string("render") {
            guard let json = HarnessRuns.report(TextFile.join(directory, "results.json")),
                let results = LatencyResults(json: json)
            else { throw DriveError("no results in \(directory)/results.json") }
            try BenchmarksDoc.replaceSection("bench-latency", with: LatencySection.render(results))
            return true
        }
        let context = try BenchContext(flags: options.flags, log: log)
        var results = LatencyResults(
            command: context.command, started: BenchmarksDoc.utcMinute(), repeats: options.repeats,
            seconds: options.seconds)
        let gateway = try context.gateway()
        defer { gateway.stop() }
        let bench = LatencyBench(
            context: context, gateway: gateway, seconds: options.seconds, quick: options.quick, reads: options.reads)
        for repeat_ in stride(from: 1, through: options.repeats, by: 1) {
            for (sessions, subscribers, rate) in options.shapes {
                results.fanout.append(
                    try bench.fanout(
                        label: "fanout-\(sessions)x\(subscribers)-\(repeat_)", sessions: sessions,
                        subscribers: subscribers, rate: rate))
            }
            if options.ramp {
                results.ramp.append(
                    try bench.ramp(label: "ramp-\(repeat_)", rates: options.quick ? quickRampRates : rampRates))
            }
        }
        gateway.stop()
        try context.publish(
            results: results.json, section: LatencySection.render(results), name: "bench-latency", title: "Latency",
            quick: options.quick || options.partial)
        return true
    }
}
