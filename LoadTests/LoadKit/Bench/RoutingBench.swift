import SwitchboardJSON

/// The runs of `loadtest bench-routing`: time to assignment over two nodes,
/// a queue given out at once, and what routing costs the chat path.
struct RoutingBench {
    let context: BenchContext
    let quick: Bool
    let seconds: Int

    /// The gateway's TOML for routing `mode` with `capacity`, as node `name`
    /// of a cluster on the PostgreSQL bus (nil: one node).
    static func toml(mode: String, capacity: Int = 5, node: String? = nil) -> String {
        let cluster = node.map { "[cluster]\nbus = \"postgres\"\nnode_id = \"\($0)\"\n" } ?? ""
        return cluster + "[routing]\nmode = \"\(mode)\"\nmax_sessions_per_operator = \(capacity)\n"
    }

    /// Vacuumed and checkpointed before a measurement (`DatabaseCommands.settle`);
    /// --quick, a smoke test of every part, skips it for time.
    private func settle() throws {
        if !quick { try DatabaseCommands.settle(context.databaseURL) }
    }

    /// Two nodes, both on core 0 (the harness has core 1), least_busy.
    func twoNodes(capacity: Int) throws -> [GatewayProcess] {
        var nodes: [GatewayProcess] = []
        do {
            for index in 1...2 {
                nodes.append(
                    try context.gateway(
                        name: "node\(index)", logPath: TextFile.join(context.out, "node\(index).log"),
                        extra: Self.toml(mode: "least_busy", capacity: capacity, node: "node\(index)")))
            }
        } catch {
            for node in nodes { node.stop() }
            throw error
        }
        return nodes
    }

    /// The routing scenario against both nodes; the passes their /metrics counted meanwhile.
    func routing(label: String, nodes: [GatewayProcess], options: [String]) throws -> RoutingRunRow {
        try settle()
        let directory = try context.directory(label)
        let before = Self.passes(nodes)
        let sampler = CPUSampler(named: [("gateways", "switchboard serve"), ("harness", "loadtest routing")])
        let (report, output) = try sampler.measure { () throws in
            try context.harness(
                "routing", urls: nodes.map(\.url), options: ["--gateway-pid", String(nodes[0].pid)] + options,
                directory: directory)
        }
        let after = Self.passes(nodes)
        var row = RoutingRunRow(label: label, report: report)
        row.passes = after.count - before.count
        row.passSeconds = after.seconds - before.seconds
        row.cores = sampler.cores()
        context.log("\(label): \(row.json.text)")
        if row.passed != true { context.log("\(label): loadtest reported failures:\n\(output.suffix(3000))") }
        return row
    }

    /// Routing passes so far on `nodes`: how many, and their seconds.
    static func passes(_ nodes: [GatewayProcess]) -> (count: Double, seconds: Double) {
        var count = 0.0
        var seconds = 0.0
        for node in nodes {
            guard let text = try? node.metrics() else { continue }
            count += PrometheusText.value("switchboard_routing_pass_seconds_count", in: text) ?? 0
            seconds += PrometheusText.value("switchboard_routing_pass_seconds_sum", in: text) ?? 0
        }
        return (count, seconds)
    }

    /// `manual` against `least_busy` on one node, alternating A B B A, each
    /// run on a gateway of its own: the conversations scenario offered more
    /// than the machine stores (throughput), then a rate it keeps up with (p99).
    func costRounds(_ rounds: Int, saturatingRate: Int, steadyRate: Int) throws -> [CostRow] {
        var rows: [CostRow] = []
        for round in 0..<rounds {
            for mode in round % 2 == 0 ? ["manual", "least_busy"] : ["least_busy", "manual"] {
                let gateway = try context.gateway(
                    name: "cost-\(mode)", logPath: TextFile.join(context.out, "cost-\(mode).log"),
                    extra: Self.toml(mode: mode))
                defer { gateway.stop() }
                for (kind, rate) in [("throughput", saturatingRate), ("latency", steadyRate)] {
                    rows.append(try cost(gateway, mode: mode, kind: kind, rate: rate, round: round + 1))
                }
            }
        }
        return rows
    }

    private func cost(_ gateway: GatewayProcess, mode: String, kind: String, rate: Int, round: Int) throws -> CostRow {
        try settle()
        let label = "cost-\(kind)-\(mode)-\(round)"
        let before = Self.passes([gateway])
        let sampler = CPUSampler(named: [("gateway", "switchboard serve"), ("harness", "loadtest conversations")])
        let (report, output) = try sampler.measure { () throws in
            try context.harness(
                "conversations", urls: [gateway.url],
                options: [
                    "--gateway-pid", String(gateway.pid), "--sessions", quick ? "100" : "500", "--operators", "2",
                    "--rate", String(rate), "--seconds", String(seconds), "--drain", "60",
                ], directory: TextFile.join(context.out, label))
        }
        var row = CostRow(label: label, mode: mode, kind: kind, rate: rate, round: round)
        row.passed = report["correctness"]?["failures"]?.doubleValue == 0
        row.storedPerSecond = report.figure("stored_per_second")
        row.p50Ms = report.latency("send_to_delivery", "p50_ms")
        row.p99Ms = report.latency("send_to_delivery", "p99_ms")
        row.passes = Self.passes([gateway]).count - before.count
        row.cores = sampler.cores()
        context.log("\(label): \(row.json.text)")
        if !row.passed { context.log("\(label): loadtest reported failures:\n\(output.suffix(3000))") }
        return row
    }
}
