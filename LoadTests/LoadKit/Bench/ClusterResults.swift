import SwitchboardJSON

/// What `loadtest bench-cluster` measured: the writer with and without
/// NOTIFY, what notifying costs the database's CPU, and the cross-node runs.
/// Written to results.json and rendered into docs/benchmarks.md ("Clusters")
/// by `ClusterSection`.
public struct ClusterResults: Sendable {
    /// writer-bench's "batched" objects, without and with --notify, round by round.
    public var plain: [JSONValue] = []
    public var notify: [JSONValue] = []
    public var notifyCPU: [NotifyCPURun] = []
    public var runs: [ClusterRun] = []

    public init() {}

    public var json: JSONValue {
        let writer: JSONValue = [
            "plain": .array(plain), "notify": .array(notify), "cpu": .array(notifyCPU.map(\.json)),
        ]
        return ["writer": writer, "cluster": .array(runs.map(\.json))]
    }

    /// A finished run's results.json (`--render`); the runs' figures are read
    /// again from their reports by the caller.
    public init?(json: JSONValue) {
        guard let writer = json["writer"], let runs = json["cluster"]?.arrayValue else { return nil }
        plain = writer["plain"]?.arrayValue ?? []
        notify = writer["notify"]?.arrayValue ?? []
        notifyCPU = (writer["cpu"]?.arrayValue ?? []).map(NotifyCPURun.init(json:))
        self.runs = runs.map(ClusterRun.init(json:))
    }
}

/// The CPU-seconds of the writer's and the bus's database backends in one writer-bench run with --notify.
public struct NotifyCPURun: Sendable, Equatable {
    public var mode: String
    public var writerSeconds: Double
    public var busSeconds: Double

    public init(mode: String, writerSeconds: Double, busSeconds: Double) {
        self.mode = mode
        self.writerSeconds = writerSeconds
        self.busSeconds = busSeconds
    }

    /// The bus backends' CPU as a percentage of the writer backends', to one place.
    public var share: Double? { writerSeconds > 0 ? PythonFormat.round(100 * busSeconds / writerSeconds, 1) : nil }

    var json: JSONValue {
        [
            "mode": .string(mode), "writer_s": .optional(writerSeconds), "bus_s": .optional(busSeconds),
            "share": .optional(share),
        ]
    }

    init(json: JSONValue) {
        self.init(
            mode: json["mode"]?.stringValue ?? "", writerSeconds: json["writer_s"]?.doubleValue ?? 0,
            busSeconds: json["bus_s"]?.doubleValue ?? 0)
    }
}

/// One `loadtest conversations` run against one or two nodes.
public struct ClusterRun: Sendable {
    public var label: String
    public var nodes: Int
    public var writers: Int
    public var depth: Int
    public var rate: Int
    public var passed = false
    public var correctness: JSONValue = .null
    public var deliveriesPerSecond: Double?
    public var storedPerSecond: Double?
    public var p50Ms: Double?
    public var p99Ms: Double?
    public var ackP50Ms: Double?
    public var ackP99Ms: Double?
    /// Busy cores by party (machine, postgres, gateways, harness, nats).
    public var cores: [String: Double] = [:]

    public init(label: String, nodes: Int, writers: Int, depth: Int, rate: Int) {
        self.label = label
        self.nodes = nodes
        self.writers = writers
        self.depth = depth
        self.rate = rate
    }

    /// The figures of the harness's report (conversations.json). The
    /// scenario's own targets are for one node at 50,000 msg/s; here the
    /// correctness checks are what count.
    public mutating func read(report: JSONValue) {
        correctness = report["correctness"] ?? .null
        passed = correctness["failures"]?.doubleValue == 0
        deliveriesPerSecond = report.figure("delivered_per_second")
        storedPerSecond = report.figure("stored_per_second")
        p50Ms = report.latency("send_to_delivery", "p50_ms")
        p99Ms = report.latency("send_to_delivery", "p99_ms")
        ackP50Ms = report.latency("send_to_ack", "p50_ms")
        ackP99Ms = report.latency("send_to_ack", "p99_ms")
    }

    /// The bus it ran on: its label's first word (postgres-one-node-5000-1).
    public var bus: String { String(label.split(separator: "-").first ?? "") }

    var json: JSONValue {
        [
            "label": .string(label), "nodes": .int(nodes), "writers": .int(writers), "depth": .int(depth),
            "rate": .int(rate), "passed": .bool(passed), "correctness": correctness,
            "deliveries_per_s": .optional(deliveriesPerSecond), "stored_per_s": .optional(storedPerSecond),
            "p50_ms": .optional(p50Ms), "p99_ms": .optional(p99Ms), "ack_p50_ms": .optional(ackP50Ms),
            "ack_p99_ms": .optional(ackP99Ms), "cores": .numbers(cores),
        ]
    }

    init(json: JSONValue) {
        func int(_ key: String, _ fallback: Int) -> Int { PythonFormat.int(json[key]) ?? fallback }
        self.init(
            label: json["label"]?.stringValue ?? "", nodes: int("nodes", 1), writers: int("writers", 2),
            depth: int("depth", 2), rate: int("rate", 0))
        cores = json["cores"]?.numbers ?? [:]
    }
}
