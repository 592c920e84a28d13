import SwitchboardJSON

/// What `loadtest bench-latency` measured: each fan-out run against its
/// floor, and each ramp's steps. Written to results.json and rendered into
/// docs/benchmarks.md ("Latency") by `LatencySection`.
public struct LatencyResults: Sendable {
    public var command: String
    public var started: String
    public var repeats: Int
    public var seconds: Int
    public var fanout: [LatencyRun] = []
    public var ramp: [LatencyRamp] = []

    public init(command: String, started: String, repeats: Int, seconds: Int) {
        self.command = command
        self.started = started
        self.repeats = repeats
        self.seconds = seconds
    }

    public var json: JSONValue {
        let meta: JSONValue = [
            "started": .string(started), "command": .string(command), "repeats": .int(repeats),
            "seconds": .int(seconds),
        ]
        return ["meta": meta, "fanout": .array(fanout.map(\.json)), "ramp": .array(ramp.map(\.json))]
    }

    /// The results a finished run's results.json holds (`--render`).
    public init?(json: JSONValue) {
        guard let meta = json["meta"], let fanout = json["fanout"]?.arrayValue, let ramp = json["ramp"]?.arrayValue
        else { return nil }
        command = meta["command"]?.stringValue ?? ""
        started = meta["started"]?.stringValue ?? ""
        repeats = PythonFormat.int(meta["repeats"]) ?? 0
        seconds = PythonFormat.int(meta["seconds"]) ?? 0
        self.fanout = fanout.map(LatencyRun.init(json:))
        self.ramp = ramp.map(LatencyRamp.init(json:))
    }
}

/// One fan-out shape's run and the floor measured straight after it.
public struct LatencyRun: Sendable {
    public var label: String
    public var shape: String
    public var rate: Int
    public var passed: Bool?
    public var deliveryP50Ms: Double?
    public var deliveryP99Ms: Double?
    public var ackP99Ms: Double?
    public var deliveriesPerSecond: Double?
    public var gatewayCores: Double?
    public var floorP50Ms: Double?
    public var floorP99Ms: Double?
    /// The gateway's stages between scrapes before and after the run, in `SendStages.stages` order.
    public var stages: [SendStages.Stage] = []
    /// Busy cores by party (machine, postgres, harness, gateway).
    public var cpu: [String: Double] = [:]

    public init(label: String, shape: String, rate: Int) {
        self.label = label
        self.shape = shape
        self.rate = rate
    }

    public func stage(_ name: String) -> SendStages.Stage? { stages.first { $0.name == name } }

    /// The gateway's send-to-delivery p99 minus the floor's p99.
    public var aboveP99Ms: Double? {
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
            "above_p99_ms": .optional(aboveP99Ms),
        ]
    }

    init(json: JSONValue) {
        self.init(
            label: json["label"]?.stringValue ?? "", shape: json["shape"]?.stringValue ?? "",
            rate: PythonFormat.int(json["rate"]) ?? 0)
        passed = json["passed"]?.boolValue
        deliveryP50Ms = json["delivery_p50_ms"]?.doubleValue
        deliveryP99Ms = json["delivery_p99_ms"]?.doubleValue
        ackP99Ms = json["ack_p99_ms"]?.doubleValue
        deliveriesPerSecond = json["deliveries_per_s"]?.doubleValue
        gatewayCores = json["gateway_cores"]?.doubleValue
        floorP50Ms = json["floor_p50_ms"]?.doubleValue
        floorP99Ms = json["floor_p99_ms"]?.doubleValue
        stages = (json["stages"]?.members ?? []).map { name, stage in
            SendStages.Stage(
                name: name, count: Int64(PythonFormat.int(stage["count"]) ?? 0),
                p50Milliseconds: stage["p50_ms"]?.doubleValue, p99Milliseconds: stage["p99_ms"]?.doubleValue)
        }
        cpu = json["cpu"]?.numbers ?? [:]
    }
}

/// One ramp: its steps up to the first whose p99 is above that rate's floor + 5 ms.
public struct LatencyRamp: Sendable {
    public struct Step: Sendable, Equatable {
        public var rate: Int
        public var p99Ms: Double
        public var floorP99Ms: Double
        public var within: Bool
        public var ackedShare: Double

        public init(rate: Int, p99Ms: Double, floorP99Ms: Double, within: Bool, ackedShare: Double) {
            self.rate = rate
            self.p99Ms = p99Ms
            self.floorP99Ms = floorP99Ms
            self.within = within
            self.ackedShare = ackedShare
        }

        var json: JSONValue {
            [
                "rate": .int(rate), "p99_ms": .optional(p99Ms), "floor_p99_ms": .optional(floorP99Ms),
                "within": .bool(within), "acked_share": .optional(ackedShare),
            ]
        }

        init(json: JSONValue) {
            self.init(
                rate: PythonFormat.int(json["rate"]) ?? 0, p99Ms: json["p99_ms"]?.doubleValue ?? .nan,
                floorP99Ms: json["floor_p99_ms"]?.doubleValue ?? .nan, within: json["within"]?.boolValue ?? false,
                ackedShare: json["acked_share"]?.doubleValue ?? 0)
        }
    }

    public var label: String
    public var steps: [Step] = []
    public var passed: Bool?

    public init(label: String) { self.label = label }

    /// Steps stop at the first one out of bounds, so every earlier one is within.
    public var highestWithinRate: Int { steps.filter(\.within).map(\.rate).max() ?? 0 }

    var json: JSONValue {
        [
            "label": .string(label), "steps": .array(steps.map(\.json)),
            "highest_within_ms_rate": .int(highestWithinRate), "passed": .optional(passed),
        ]
    }

    init(json: JSONValue) {
        label = json["label"]?.stringValue ?? ""
        passed = json["passed"]?.boolValue
        steps = (json["steps"]?.arrayValue ?? []).map(Step.init(json:))
    }
}
