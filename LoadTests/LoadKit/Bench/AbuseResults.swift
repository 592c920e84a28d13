import SwitchboardJSON

/// What `loadtest bench-abuse` measured: per repeat, a pair of separate runs
/// (alone, then beside the abuser) and a pair of interleaved runs (A/A, then
/// the abuser in the B windows). Written to results.json and rendered into
/// docs/benchmarks.md ("Abuse") by `AbuseSection`.
public struct AbuseResults: Sendable {
    public struct Shape: Sendable, Equatable {
        public var sessions: Int
        public var subscribers: Int
        public var rate: Int

        public init(sessions: Int, subscribers: Int, rate: Int) {
            self.sessions = sessions
            self.subscribers = subscribers
            self.rate = rate
        }
    }

    public var command: String
    public var started: String
    public var repeats: Int
    public var seconds: Int
    public var shape: Shape
    public var abuseRate: Int
    public var interleaveSeconds: Int
    public var pairs: [(alone: AbuseRun, abused: AbuseRun)] = []
    public var interleaved: [(control: InterleavedRun, abused: InterleavedRun)] = []

    public init(
        command: String, started: String, repeats: Int, seconds: Int, shape: Shape, abuseRate: Int,
        interleaveSeconds: Int
    ) {
        self.command = command
        self.started = started
        self.repeats = repeats
        self.seconds = seconds
        self.shape = shape
        self.abuseRate = abuseRate
        self.interleaveSeconds = interleaveSeconds
    }

    /// The labels of the runs whose correctness checks failed.
    public var failed: [String] {
        pairs.flatMap { [$0.alone, $0.abused] }.filter { $0.passed != true }.map(\.label)
            + interleaved.flatMap { [$0.control, $0.abused] }.filter { $0.passed != true }.map(\.label)
    }

    public var json: JSONValue {
        let meta: JSONValue = [
            "started": .string(started), "command": .string(command), "repeats": .int(repeats),
            "seconds": .int(seconds), "shape": [.int(shape.sessions), .int(shape.subscribers), .int(shape.rate)],
            "abuse_rate": .int(abuseRate), "interleave_seconds": .int(interleaveSeconds),
        ]
        let pairs: [JSONValue] = pairs.map { alone, abused in
            [
                "alone": alone.json, "abused": abused.json,
                "change": .optional(AbuseRun.change(abused.p99Ms, over: alone.p99Ms)),
                "inside_change": .optional(AbuseRun.change(abused.insideP99Ms, over: alone.insideP99Ms)),
            ]
        }
        let interleaved: [JSONValue] = interleaved.map { ["control": $0.control.json, "abused": $0.abused.json] }
        return ["meta": meta, "pairs": .array(pairs), "interleaved": .array(interleaved)]
    }
}

/// One separate fanout run, alone or beside the abuser.
public struct AbuseRun: Sendable {
    public var label: String
    public var abuse: Bool
    public var passed: Bool?
    public var p50Ms: Double?
    public var p99Ms: Double?
    /// Inside the gateway (frame read to ack written): what the harness's core does not move.
    public var insideP50Ms: Double?
    public var insideP99Ms: Double?
    public var deliveriesPerSecond: Double?
    /// Connections the gateway refused during the run, by reason (per_ip_connections, per_ip_rate, ...).
    public var refused: [String: Int] = [:]
    public var attack: AbuserCounts?

    public init(label: String, abuse: Bool) {
        self.label = label
        self.abuse = abuse
    }

    /// `value / base - 1`, NaN without both (or with a base of 0).
    public static func change(_ value: Double?, over base: Double?) -> Double {
        guard let value, let base, base != 0 else { return .nan }
        return value / base - 1
    }

    var json: JSONValue {
        [
            "label": .string(label), "abuse": .bool(abuse), "passed": .optional(passed), "p50_ms": .optional(p50Ms),
            "p99_ms": .optional(p99Ms), "inside_p50_ms": .optional(insideP50Ms),
            "inside_p99_ms": .optional(insideP99Ms), "deliveries_per_s": .optional(deliveriesPerSecond),
            "refused": .counts(refused), "attack": attack?.json ?? .null,
        ]
    }
}

/// One fanout run with its latency split by alternating windows (A/A, or the abuser in the B ones).
public struct InterleavedRun: Sendable {
    public var label: String
    public var abuse: Bool
    public var passed: Bool?
    public var aP99Ms: Double?
    public var bP99Ms: Double?
    public var aP50Ms: Double?
    public var bP50Ms: Double?
    public var aCount: Int?
    public var bCount: Int?
    public var p99Ms: Double?
    public var attack: AbuserCounts?

    public init(label: String, abuse: Bool) {
        self.label = label
        self.abuse = abuse
    }

    /// The B windows' p99 over the A windows', minus one.
    public var change: Double { AbuseRun.change(bP99Ms, over: aP99Ms) }

    var json: JSONValue {
        [
            "label": .string(label), "abuse": .bool(abuse), "passed": .optional(passed), "a_p99_ms": .optional(aP99Ms),
            "b_p99_ms": .optional(bP99Ms), "a_p50_ms": .optional(aP50Ms), "b_p50_ms": .optional(bP50Ms),
            "a_count": .optional(aCount), "b_count": .optional(bCount), "p99_ms": .optional(p99Ms),
            "attack": attack?.json ?? .null, "change": .optional(change),
        ]
    }
}
