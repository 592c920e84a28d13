import SwitchboardJSON

/// What `loadtest bench-cluster` measured: the writer with and without
/// NOTIFY, what notifying costs the database's CPU, and the cross-node runs.
/// Written to results.json and rendered into docs/benchmarks.md ("Clusters")
/// by `ClusterSection`.
struct ClusterResults: Sendable {
    /// writer-bench's "batched" objects, without and with --notify, round by round.
    var plain: [JSONValue] = []
    var notify: [JSONValue] = []
    var notifyCPU: [NotifyCPURun] = []
    var runs: [ClusterRun] = []

    var json: JSONValue {
        let writer: JSONValue = [
            "plain": .array(plain), "notify": .array(notify), "cpu": .array(notifyCPU.map(\.json)),
        ]
        return ["writer": writer, "cluster": .array(runs.map(\.json))]
    }
}

/// The CPU-seconds of the writer's and the bus's database backends in one writer-bench run with --notify.
struct NotifyCPURun: Sendable, Equatable {
    var mode: String
    var writerSeconds: Double
    var busSeconds: Double

    /// The bus backends' CPU as a percentage of the writer backends', to one place.
    var share: Double? { writerSeconds > 0 ? PythonFormat.round(100 * busSeconds / writerSeconds, 1) : nil }

    var json: JSONValue {
        [
            "mode": .string(mode), "writer_s": .optional(writerSeconds), "bus_s": .optional(busSeconds),
            "share": .optional(share),
        ]
    }
}

/// One `loadtest conversations` run against one or two nodes.
struct ClusterRun: Sendable {
    var label: String
    /// Nodes, writer connections per node, writer.pipeline_depth, messages/s.
    var nodes, writers, depth, rate: Int
    var passed = false
    var correctness: JSONValue = .null
    var deliveriesPerSecond, storedPerSecond, p50Ms, p99Ms, ackP50Ms, ackP99Ms: Double?
    /// Busy cores by party (machine, postgres, gateways, harness, nats).
    var cores: [String: Double] = [:]

    /// The figures of the harness's report (conversations.json). The
    /// scenario's own targets are for one node at 50,000 msg/s; here the
    /// correctness checks are what count.
    mutating func read(report: JSONValue) {
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
    var bus: String { String(label.split(separator: "-").first ?? "") }

    var json: JSONValue {
        [
            "label": .string(label), "nodes": .int(nodes), "writers": .int(writers), "depth": .int(depth),
            "rate": .int(rate), "passed": .bool(passed), "correctness": correctness,
            "deliveries_per_s": .optional(deliveriesPerSecond), "stored_per_s": .optional(storedPerSecond),
            "p50_ms": .optional(p50Ms), "p99_ms": .optional(p99Ms), "ack_p50_ms": .optional(ackP50Ms),
            "ack_p99_ms": .optional(ackP99Ms), "cores": .numbers(cores),
        ]
    }
}

/// A finished run's results.json read back (`loadtest bench-cluster --render`);
/// the runs' figures are read again from their reports by the caller.
extension ClusterResults {
    init?(json: JSONValue) {
        guard let writer = json["writer"], let runs = json["cluster"]?.arrayValue else { return nil }
        self.init(
            plain: writer["plain"]?.arrayValue ?? [], notify: writer["notify"]?.arrayValue ?? [],
            notifyCPU: (writer["cpu"]?.arrayValue ?? []).map(NotifyCPURun.init(json:)),
            runs: runs.map(ClusterRun.init(json:)))
    }
}

extension NotifyCPURun {
    init(json: JSONValue) {
        self.init(
            mode: json["mode"]?.stringValue ?? "", writerSeconds: json["writer_s"]?.doubleValue ?? 0,
            busSeconds: json["bus_s"]?.doubleValue ?? 0)
    }
}

extension ClusterRun {
    init(json: JSONValue) {
        func int(_ key: String, _ fallback: Int) -> Int { PythonFormat.int(json[key]) ?? fallback }
        self.init(
            label: json["label"]?.stringValue ?? "", nodes: int("nodes", 1), writers: int("writers", 2),
            depth: int("depth", 2), rate: int("rate", 0), cores: json["cores"]?.numbers ?? [:])
    }
}
