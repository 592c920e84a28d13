import SwitchboardJSON

/// `loadtest bench-cluster`: what a cluster costs on this machine
/// (scripts/bench-cluster; docs/benchmarks.md, "Clusters").
public enum ClusterDriver {
    public static let usage = """
        usage: loadtest bench-cluster [--rates R1,R2] [--seconds S] [--rounds N] [--repeats K] [--quick] SET-UP
               loadtest bench-cluster --render DIR [--rates R1,R2] [--seconds S] [--repeats K] [--quick]

        1. The writer with and without NOTIFY (writer-bench --only batched, with and without
           --notify), N rounds each (default 5), alternating: stored messages/s and the ratio;
           and within runs with NOTIFY, the bus backends' CPU against the writer backends'.
        2. For each bus (postgres, nats) and rate (default 5,000 and 10,000/s): `loadtest
           conversations` for S seconds (default 10; 500 sessions of a visitor and two operators)
           against one node (two writer connections), two nodes with two each, two with one
           each, and two with one each at writer.pipeline_depth 1; two nodes: each session's
           visitor on one, its operators on the other. K times each (default 2) in rotating
           order, each run with only its own nodes up, on a vacuumed and checkpointed database.
        Nodes on core 0, the harness on core 1. Writes results.json and each run's reports to
        --out and the "Clusters" section of docs/benchmarks.md. --quick: 2,000 msg/s for 4 s,
        one round, one repeat. --render DIR writes the section again from DIR's results.json
        and reports. --check only checks the flags.

        """ + BenchContext.setUpUsage

    struct Options {
        var flags: DriverFlags
        var run: ClusterSection.Run
        var rounds: Int
    }

    public static func main(_ arguments: [String]) -> Int32 {
        BenchMain.run(arguments, usage: usage, tag: "bench-cluster", parse: parse, run: run)
    }

    static func parse(_ arguments: [String]) throws(DriverFlags.UsageError) -> Options {
        let flags = try DriverFlags(
            arguments, options: BenchContext.setUpOptions + ["rates", "seconds", "rounds", "repeats", "render"],
            switchNames: ["quick", "check"])
        let quick = flags.has("quick")
        let run = ClusterSection.Run(
            quick: quick, seconds: try flags.int("seconds", default: quick ? 4 : 10),
            repeats: try flags.int("repeats", default: quick ? 1 : 2),
            rates: try flags.string("rates").map(parseRates) ?? (quick ? [2000] : [5000, 10000]))
        return Options(flags: flags, run: run, rounds: try flags.int("rounds", default: quick ? 1 : 5))
    }

    static func run(_ options: Options, log: DriveLog) throws -> Bool {
        if let directory = options.flags.string("render") {
            try render(directory, options.run)
            return true
        }
        let run = options.run
        let context = try BenchContext(flags: options.flags, log: log)
        let bench = ClusterBench(context: context, quick: run.quick, seconds: run.seconds)
        var results = ClusterResults()
        (results.plain, results.notify) = try bench.writerRounds(options.rounds)
        results.notifyCPU = try bench.notifyCPURuns()
        results.runs = try bench.clusterRuns(rates: run.rates, repeats: run.repeats)
        print(results.json.text)
        try context.publish(
            results: results.json, section: ClusterSection.render(results, run), name: "bench-cluster",
            title: "Clusters", quick: false)
        return true
    }

    static func parseRates(_ text: String) throws(DriverFlags.UsageError) -> [Int] {
        let rates = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
        guard !rates.isEmpty, rates.allSatisfy({ ($0 ?? 0) > 0 }) else {
            throw DriverFlags.UsageError(description: "--rates needs rates separated by commas, not \(text)")
        }
        return rates.compactMap { $0 }
    }

    /// The section again from a finished run's files: results.json and each run's report.
    static func render(_ directory: String, _ run: ClusterSection.Run) throws {
        guard let json = HarnessRuns.report(TextFile.join(directory, "results.json")),
            var results = ClusterResults(json: json)
        else { throw DriveError("no results in \(directory)/results.json") }
        for index in results.runs.indices {
            let path = TextFile.join(TextFile.join(directory, results.runs[index].label), "conversations.json")
            guard let report = HarnessRuns.report(path) else { throw DriveError("no report \(path)") }
            results.runs[index].read(report: report)
        }
        try BenchmarksDoc.replaceSection(
            "bench-cluster", with: ClusterSection.render(results, run))
    }
}
