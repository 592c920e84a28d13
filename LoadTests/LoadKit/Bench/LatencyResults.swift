import SwitchboardJSON

/// What `loadtest bench-latency` measured: each fan-out run against its
/// floor, and each ramp's steps. Written to results.json and rendered into
/// docs/benchmarks.md ("Latency") by `LatencySection`.
struct LatencyResults {
    var command: String
    var started: String
    var repeats: Int
    var seconds: Int
    var fanout: [LatencyRun] = []
    var ramp: [LatencyRamp] = []

    var json: JSONValue {
        let meta: JSONValue = [
            "started": .string(started), "command": .string(command), "repeats": .int(repeats),
            "seconds": .int(seconds),
        ]
        return ["meta": meta, "fanout": .array(fanout.map(\.json)), "ramp": .array(ramp.map(\.json))]
    }
}

/// One fan-out shape's run and the floor measured straight after it.
struct LatencyRun {
    var label, shape: String
    var rate: Int
    var passed: Bool?
    var deliveryP50Ms, deliveryP99Ms, ackP99Ms, deliveriesPerSecond, gatewayCores: Double?
    /// writer-bench's submit-to-commit latency at the same rate and sessions.
    var floorP50Ms, floorP99Ms: Double?
    /// The gateway's stages between scrapes before and after the run, in `SendStages.stages` order.
    var stages: [SendStages.Stage] = []
    /// Busy cores by party (machine, postgres, harness, gateway).
    var cpu: [String: Double] = [:]
    /// Messages the gateway stored over the run, and PostgreSQL's CPU-seconds
    /// meanwhile by role (`BackendCPU`: the writer, the search indexer, ...).
    var stored: Double = 0
    var postgresByRole: [String: Double] = [:]
    /// Messages the search indexer indexed over the run (`switchboard_search_indexed_total`).
    var indexed: Double = 0

    /// Microseconds of PostgreSQL's CPU per stored message, all its processes.
    var postgresPerStored: Double? {
        guard stored > 0, !postgresByRole.isEmpty else { return nil }
        return PythonFormat.round(postgresByRole.values.reduce(0, +) * 1e6 / stored, 1)
    }

    /// "N us: role N us, ..." per stored message, the costliest role first.
    var postgresPerStoredText: String {
        guard let total = postgresPerStored else { return "none" }
        let roles = postgresByRole.sorted { $0.value > $1.value }.map {
            "\($0.key) \(PythonFormat.fixed($0.value * 1e6 / stored, 1))"
        }
        return "\(PythonFormat.fixed(total, 1)) us (" + roles.joined(separator: ", ") + ")"
    }

    /// Microseconds of the search indexer's CPU per message it indexed. It
    /// runs behind the writer and yields while the gateway is busy, so its
    /// share per *stored* message moves with how much of its work fell inside
    /// the run; per indexed message it does not.
    var indexerPerIndexed: Double? {
        guard indexed > 0, let seconds = postgresByRole[Self.indexerRole] else { return nil }
        return PythonFormat.round(seconds * 1e6 / indexed, 1)
    }

    static let indexerRole = "switchboard-search-indexer"

    func stage(_ name: String) -> SendStages.Stage? { stages.first { $0.name == name } }

    /// The gateway's send-to-delivery p99 minus the floor's p99.
    var aboveP99Ms: Double? {
        guard let delivery = deliveryP99Ms, let floor = floorP99Ms else { return nil }
        return PythonFormat.round(delivery - floor, 2)
    }

    var json: JSONValue {
        [
            "label": .string(label), "shape": .string(shape), "rate": .int(rate), "passed": .optional(passed),
            "delivery_p50_ms": .optional(deliveryP50Ms), "delivery_p99_ms": .optional(deliveryP99Ms),
            "ack_p99_ms": .optional(ackP99Ms), "deliveries_per_s": .optional(deliveriesPerSecond),
            "gateway_cores": .optional(gatewayCores), "floor_p50_ms": .optional(floorP50Ms),
            "floor_p99_ms": .optional(floorP99Ms), "stages": SendStages.json(stages), "cpu": .numbers(cpu),
            "above_p99_ms": .optional(aboveP99Ms), "stored": .double(stored),
            "postgres_cpu_s_by_role": .numbers(postgresByRole),
            "postgres_us_per_stored": .optional(postgresPerStored), "indexed": .double(indexed),
            "indexer_us_per_indexed": .optional(indexerPerIndexed),
        ]
    }
}

/// One ramp: its steps up to the first whose p99 is above that rate's floor + 5 ms.
struct LatencyRamp {
    struct Step: Equatable {
        var rate: Int
        var p99Ms, floorP99Ms: Double
        var within: Bool
        var ackedShare: Double

        var json: JSONValue {
            [
                "rate": .int(rate), "p99_ms": .optional(p99Ms), "floor_p99_ms": .optional(floorP99Ms),
                "within": .bool(within), "acked_share": .optional(ackedShare),
            ]
        }
    }

    var label: String
    var steps: [Step] = []
    var passed: Bool?

    /// Steps stop at the first one out of bounds, so every earlier one is within.
    var highestWithinRate: Int { steps.filter(\.within).map(\.rate).max() ?? 0 }

    var json: JSONValue {
        [
            "label": .string(label), "steps": .array(steps.map(\.json)),
            "highest_within_ms_rate": .int(highestWithinRate), "passed": .optional(passed),
        ]
    }
}

/// A finished run's results.json read back (`loadtest bench-latency --render`).
extension LatencyResults {
    init?(json: JSONValue) {
        guard let meta = json["meta"], let fanout = json["fanout"]?.arrayValue, let ramp = json["ramp"]?.arrayValue
        else { return nil }
        self.init(
            command: meta["command"]?.stringValue ?? "", started: meta["started"]?.stringValue ?? "",
            repeats: PythonFormat.int(meta["repeats"]) ?? 0, seconds: PythonFormat.int(meta["seconds"]) ?? 0,
            fanout: fanout.map(LatencyRun.init(json:)), ramp: ramp.map(LatencyRamp.init(json:)))
    }
}

extension LatencyRun {
    init(json: JSONValue) {
        let stages = (json["stages"]?.members ?? []).map { name, stage in
            SendStages.Stage(
                name: name, count: Int64(PythonFormat.int(stage["count"]) ?? 0),
                p50Milliseconds: stage["p50_ms"]?.doubleValue, p99Milliseconds: stage["p99_ms"]?.doubleValue)
        }
        self.init(
            label: json["label"]?.stringValue ?? "", shape: json["shape"]?.stringValue ?? "",
            rate: PythonFormat.int(json["rate"]) ?? 0, passed: json["passed"]?.boolValue,
            deliveryP50Ms: json["delivery_p50_ms"]?.doubleValue, deliveryP99Ms: json["delivery_p99_ms"]?.doubleValue,
            ackP99Ms: json["ack_p99_ms"]?.doubleValue, deliveriesPerSecond: json["deliveries_per_s"]?.doubleValue,
            gatewayCores: json["gateway_cores"]?.doubleValue, floorP50Ms: json["floor_p50_ms"]?.doubleValue,
            floorP99Ms: json["floor_p99_ms"]?.doubleValue, stages: stages, cpu: json["cpu"]?.numbers ?? [:],
            stored: json["stored"]?.doubleValue ?? 0, postgresByRole: json["postgres_cpu_s_by_role"]?.numbers ?? [:],
            indexed: json["indexed"]?.doubleValue ?? 0)
    }
}

extension LatencyRamp {
    init(json: JSONValue) {
        let steps = (json["steps"]?.arrayValue ?? []).map { step in
            Step(
                rate: PythonFormat.int(step["rate"]) ?? 0, p99Ms: step["p99_ms"]?.doubleValue ?? .nan,
                floorP99Ms: step["floor_p99_ms"]?.doubleValue ?? .nan, within: step["within"]?.boolValue ?? false,
                ackedShare: step["acked_share"]?.doubleValue ?? 0)
        }
        self.init(label: json["label"]?.stringValue ?? "", steps: steps, passed: json["passed"]?.boolValue)
    }
}
