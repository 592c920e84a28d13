import SwitchboardJSON

/// `loadtest bench-routing`: time to an operator, a queue given out at
/// once, and what routing costs the chat path (scripts/bench-routing;
/// docs/benchmarks.md, "Routing").
public enum RoutingDriver {
    public static let usage = """
        usage: loadtest bench-routing [--seconds S] [--rounds N] [--quick] SET-UP

        1. Two nodes (PostgreSQL bus, capacity 5): `loadtest routing` with 50 operators and 100 new
           sessions/s for S seconds (default 20): first message to assignment, p50/p99.
        2. Two nodes, each operator's capacity raised to 40 over the API (PATCH /api/v1/operators):
           2,000 visitors queued while every operator is away, then all online at once: how fast one
           workspace's queue is given out, and in how many passes.
        3. Two gateways side by side, routing.mode manual and least_busy, each under its own
           `loadtest conversations` (500 sessions of a visitor and two operators) at the same rate
           at the same time, N rounds (default 3) on fresh gateways, their order swapped each
           round: stored msg/s offered 20,000/s each (throughput) and p99 at 2,000/s each, S/2 s;
           then one control round of manual beside manual (the method's own noise).
        Gateways on core 0, the harness on core 1. Writes results.json and each run's report to --out,
        and the "Routing" section of docs/benchmarks.md (--quick: 20 operators, 30 sessions/s for 4 s,
        a 300-session queue, one round at 5,000 and 1,000 msg/s each; prints the section instead).
        --check only checks the flags.

        """ + BenchContext.setUpUsage

    struct Options {
        var flags: DriverFlags
        var quick: Bool
        var seconds: Int
        var rounds: Int
    }

    public static func main(_ arguments: [String]) -> Int32 {
        BenchMain.run(arguments, usage: usage, tag: "bench-routing", parse: parse, run: run)
    }

    static func parse(_ arguments: [String]) throws(DriverFlags.UsageError) -> Options {
        let flags = try DriverFlags(
            arguments, options: BenchContext.setUpOptions + ["seconds", "rounds"], switchNames: ["quick", "check"])
        let quick = flags.has("quick")
        return Options(
            flags: flags, quick: quick, seconds: try flags.int("seconds", default: quick ? 4 : 20),
            rounds: try flags.int("rounds", default: quick ? 1 : 3))
    }

    static func run(_ options: Options, log: DriveLog) throws -> Bool {
        let context = try BenchContext(flags: options.flags, log: log)
        let quick = options.quick
        var results = RoutingResults(command: context.command, started: BenchmarksDoc.utcMinute(), quick: quick)
        results.machineLoad = loadAverage()
        let bench = RoutingBench(context: context, quick: quick, seconds: max(2, options.seconds / 2))
        let operators = quick ? 20 : 50
        let rate = quick ? 30 : 100
        results.assignment.append(
            try bench.routing(
                label: "assignment", capacity: 5,
                options: [
                    "--operators", String(operators), "--sessions", String(rate * options.seconds), "--rate",
                    String(rate), "--hold", "1", "--drain", "60",
                ]))
        results.backlog.append(
            try bench.routing(
                label: "queue", capacity: 5,
                options: [
                    "--capacity", "40", "--operators", String(operators), "--sessions", quick ? "300" : "2000",
                    "--rate",
                    quick ? "300" : "500", "--hold", "1", "--backlog", "--drain", "120",
                ]))
        results.cost = try bench.costRounds(
            options.rounds, saturatingRate: quick ? 5000 : 20000, steadyRate: quick ? 1000 : 2000)
        try context.publish(
            results: results.json, section: RoutingSection.render(results), name: "bench-routing", title: "Routing",
            quick: quick)
        let failed =
            results.assignment.contains { $0.passed != true } || results.backlog.contains { $0.passed != true }
            || results.cost.contains { !$0.passed }
        if failed { log("a run failed its checks: see its report under \(context.out)") }
        return !failed
    }

    /// /proc/loadavg's three averages, as the section quotes them.
    static func loadAverage() -> String {
        let text = (try? TextFile.read("/proc/loadavg")) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: ", ")
    }
}
