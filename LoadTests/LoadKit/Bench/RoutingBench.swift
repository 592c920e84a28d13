import SwitchboardJSON
import SwitchboardSystem
import Synchronization

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

    /// The routing scenario against two fresh nodes at `capacity`; the passes their /metrics counted meanwhile.
    func routing(label: String, capacity: Int, options: [String]) throws -> RoutingRunRow {
        let nodes = try twoNodes(capacity: capacity)
        defer { for node in nodes { node.stop() } }
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

    /// `manual` against `least_busy`: one gateway of each, side by side on
    /// core 0, each under its own harness on core 1 at the same rate at the
    /// same time, so that whatever else the machine does falls on both
    /// alike; the conversations scenario offered more than the machine
    /// stores (throughput), then a rate it keeps up with (p99). Each round
    /// starts fresh gateways, the order in which they start and are loaded
    /// swapped every round (A B, B A, ...).
    /// Then (not with --quick, a smoke test) one round of `manual` beside
    /// `manual`: the method's own noise.
    func costRounds(_ rounds: Int, saturatingRate: Int, steadyRate: Int) throws -> [CostRow] {
        var rows: [CostRow] = []
        for round in 1...(max(1, rounds) + (quick ? 0 : 1)) {
            let control = round > max(1, rounds)
            let modes =
                control ? ["manual", "manual"] : round % 2 == 1 ? ["manual", "least_busy"] : ["least_busy", "manual"]
            var gateways: [GatewayProcess] = []
            defer { for gateway in gateways { gateway.stop() } }
            for (side, mode) in modes.enumerated() {
                gateways.append(
                    try context.gateway(
                        name: "cost-\(side)", logPath: TextFile.join(context.out, "cost-\(round)-\(side)-\(mode).log"),
                        extra: Self.toml(mode: mode)))
            }
            for (kind, rate) in [("throughput", saturatingRate), ("latency", steadyRate)] {
                var pair = try sideBySide(Array(zip(modes, gateways)), kind: kind, rate: rate, round: round)
                for index in pair.indices { pair[index].control = control }
                rows += pair
            }
        }
        return rows
    }

    private func sideBySide(
        _ pairs: [(mode: String, gateway: GatewayProcess)], kind: String, rate: Int, round: Int
    ) throws -> [CostRow] {
        try settle()
        let sampler = CPUSampler(
            named: pairs.indices.map { ("gateway \($0)", "cost-\($0).toml") } + [("harness", "loadtest conversations")])
        let runs = HarnessPair(count: pairs.count)
        let before = pairs.map { Self.passes([$0.gateway]).count }
        sampler.measure {
            let threads = pairs.enumerated().map { index, pair in
                let label = "cost-\(kind)-\(round)-\(index)-\(pair.mode)"
                let url = pair.gateway.url
                let options = [
                    "--gateway-pid", String(pair.gateway.pid), "--sessions", quick ? "100" : "500", "--operators", "2",
                    "--rate", String(rate), "--seconds", String(seconds), "--drain", "60",
                ]
                return NamedThread.spawn(name: "harness-\(index)") { [context] in
                    runs.set(
                        index,
                        Result {
                            try context.harness(
                                "conversations", urls: [url], options: options,
                                directory: TextFile.join(context.out, label))
                        })
                }
            }
            for thread in threads { thread.join() }
        }
        let cores = sampler.cores()
        var rows: [CostRow] = []
        for (index, pair) in pairs.enumerated() {
            let (report, output) = try runs.get(index)
            var row = CostRow(
                label: "cost-\(kind)-\(round)-\(index)-\(pair.mode)", mode: pair.mode, kind: kind, rate: rate,
                round: round)
            row.side = index
            row.passed = report["correctness"]?["failures"]?.doubleValue == 0
            row.storedPerSecond = report.figure("stored_per_second")
            row.p50Ms = report.latency("send_to_delivery", "p50_ms")
            row.p99Ms = report.latency("send_to_delivery", "p99_ms")
            row.passes = Self.passes([pair.gateway]).count - before[index]
            row.cores = ["gateway": cores["gateway \(index)"] ?? 0]
            for key in ["machine", "postgres", "harness"] { row.cores[key] = cores[key] }
            context.log("\(row.label): \(row.json.text)")
            if !row.passed { context.log("\(row.label): loadtest reported failures:\n\(output.suffix(3000))") }
            rows.append(row)
        }
        return rows
    }
}

/// The two harnesses' outcomes, each written by its own thread and read after both joined.
private final class HarnessPair: @unchecked Sendable {
    private var results: [Result<(report: JSONValue, output: String), any Error>?]
    private let lock = Mutex<Void>(())

    init(count: Int) { results = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ result: Result<(report: JSONValue, output: String), any Error>) {
        lock.withLock { _ in results[index] = result }
    }

    func get(_ index: Int) throws -> (report: JSONValue, output: String) {
        guard let result = lock.withLock({ _ in results[index] }) else {
            throw DriveError("harness \(index) did not run")
        }
        return try result.get()
    }
}
