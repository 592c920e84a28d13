import SwitchboardJSON

#if canImport(Glibc)
import Glibc
#endif

/// The runs of `loadtest bench-cluster`: the writer with and without NOTIFY,
/// what notifying costs the database's CPU, and the cross-node runs.
struct ClusterBench {
    let context: BenchContext
    let quick: Bool
    let seconds: Int

    /// What each run measures: (label, nodes, writer connections per node,
    /// pipeline depth). The one-node run keeps the defaults (two writer
    /// connections, depth 2); two nodes run with the defaults (four connections
    /// in all), with one connection each (the same two concurrent writers as
    /// the one node), and with one each at depth 1, the setting
    /// docs/cluster.md recommends for clusters.
    static let configurations = [
        ("one-node", 1, 2, 2), ("two-nodes", 2, 2, 2), ("two-nodes-w1", 2, 1, 2), ("two-nodes-w1-d1", 2, 1, 1),
    ]

    private var messages: String { quick ? "50000" : "200000" }

    private func writerBench(_ options: [String]) -> [String] {
        ["taskset", "-c", "1", context.binary("writer-bench"), "--database-url", context.databaseURL] + options
    }

    /// Stored messages/s with and without NOTIFY, alternating so drift hits both alike.
    func writerRounds(_ rounds: Int) throws -> (plain: [JSONValue], notify: [JSONValue]) {
        var plain: [JSONValue] = []
        var notify: [JSONValue] = []
        for round in 0..<max(0, rounds) {
            for notifying in round % 2 == 0 ? [false, true] : [true, false] {
                let options = ["--only", "batched", "--skip-naive", "--messages", messages]
                let run = try CapturedCommand.check(writerBench(options + (notifying ? ["--notify"] : [])))
                guard let batched = BenchJSON.line(kind: "batched", in: run.standardOutput) else {
                    throw DriveError("writer-bench printed no batched line")
                }
                if notifying { notify.append(batched) } else { plain.append(batched) }
                context.log(
                    "writer \(notifying ? "notify" : "plain"): \(PythonFormat.str(batched["per_s"], or: "None")) msg/s, "
                        + "\(PythonFormat.str(batched["notifications"], or: "0")) notifications")
            }
        }
        return (plain, notify)
    }

    /// What notifying costs the database, attributed in the same run: the bus
    /// backends' CPU (the NOTIFY statements and the other node's LISTEN)
    /// against the writer backends', at full throughput (batched, batches of
    /// 1,024) and at 10,000 msg/s over 500 sessions (the small batches a
    /// gateway sends).
    func notifyCPURuns() throws -> [NotifyCPURun] {
        let modes = [
            ("full throughput", ["--only", "batched", "--skip-naive", "--messages", messages]),
            (
                "10,000 msg/s",
                ["--only", "latency", "--sessions", "500", "--rate", "10000", "--seconds", quick ? "3" : "8"]
            ),
        ]
        var runs: [NotifyCPURun] = []
        for _ in 0..<(quick ? 1 : 3) {
            for (mode, options) in modes {
                let (_, seconds) = try BackendCPU.run(
                    writerBench(["--notify"] + options), databaseURL: context.databaseURL, database: "writer_bench")
                let run = NotifyCPURun(
                    mode: mode, writerSeconds: seconds["switchboard-writer"] ?? 0,
                    busSeconds: seconds["switchboard-bus"] ?? 0)
                runs.append(run)
                context.log(
                    "notify cpu \(mode): writer backends \(run.writerSeconds) s, bus backends \(run.busSeconds) s")
            }
        }
        return runs
    }

    func clusterRuns(rates: [Int], repeats: Int) throws -> [ClusterRun] {
        var rows: [ClusterRun] = []
        for bus in ["postgres", "nats"] {
            var nats: SpawnedProcess?
            var natsURL = "nats://127.0.0.1:4222"
            if bus == "nats" {
                let port = try LocalPorts.free()
                natsURL = "nats://127.0.0.1:\(port)"
                nats = try SpawnedProcess(["nats-server", "-a", "127.0.0.1", "-p", String(port)], output: .discard)
                guard LocalPorts.waitUntilAccepting(port: port, seconds: 30, process: nats) else {
                    nats?.stop(timeoutSeconds: 1)
                    throw DriveError("nats-server did not listen on \(port)")
                }
            }
            defer {
                nats?.signal(SIGKILL)
                nats?.wait()
            }
            for rate in rates {
                for repeat_ in 0..<max(0, repeats) {
                    // Rotated, so that drift over the run favours no configuration.
                    let shift = repeat_ % Self.configurations.count
                    let order = Self.configurations[shift...] + Self.configurations[..<shift]
                    for (name, count, writers, depth) in order {
                        // Only this run's nodes are up: a node that is not in the run would
                        // still take every notification of the PostgreSQL bus.
                        var nodes: [GatewayProcess] = []
                        defer { for node in nodes { node.stop() } }
                        for index in 1...count {
                            nodes.append(
                                try context.gateway(
                                    name: "node\(index)",
                                    logPath: TextFile.join(context.work, "node\(index)-\(bus).log"),
                                    extra: Self.nodeTOML(
                                        bus: bus, name: "node\(index)", natsURL: natsURL, writers: writers, depth: depth
                                    )))
                        }
                        // Past the NATS bus's 3.5-s grace: a lone node is measured as it runs.
                        DriveClock.sleep(seconds: 4)
                        var row = ClusterRun(
                            label: "\(bus)-\(name)-\(rate)-\(repeat_ + 1)", nodes: count, writers: writers,
                            depth: depth,
                            rate: rate)
                        try run(&row, urls: nodes.map(\.url))
                        rows.append(row)
                    }
                }
            }
        }
        return rows
    }

    static func nodeTOML(bus: String, name: String, natsURL: String, writers: Int, depth: Int) -> String {
        """
        [cluster]
        bus = "\(bus)"
        node_id = "\(name)"
        nats_url = "\(natsURL)"
        [writer]
        connections = \(writers)
        pipeline_depth = \(depth)

        """
    }

    /// `loadtest conversations` against `urls`, where the CPU went meanwhile, and its figures into `row`.
    func run(_ row: inout ClusterRun, urls: [String]) throws {
        try DatabaseCommands.settle(context.databaseURL)
        let sampler = CPUSampler(named: [
            ("gateways", "switchboard serve"), ("harness", "loadtest"), ("nats", "nats-server"),
        ])
        let label = row.label
        let (report, output) = try sampler.measure { () throws in
            try context.harness(
                "conversations", urls: urls,
                options: [
                    "--sessions", quick ? "100" : "500", "--operators", "2", "--rate", String(row.rate), "--seconds",
                    String(seconds), "--drain", "30",
                ], directory: TextFile.join(context.out, label))
        }
        row.read(report: report)
        row.cores = sampler.cores()
        context.log("\(label): \(row.json.text)")
        if !row.passed { context.log("\(label): loadtest reported failed checks:\n\(output.suffix(3000))") }
    }
}
