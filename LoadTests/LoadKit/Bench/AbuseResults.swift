import SwitchboardJSON

/// What `loadtest bench-abuse` measured: per repeat, a pair of separate runs
/// (alone, then beside the abuser) and a pair of interleaved runs (A/A, then
/// the abuser in the B windows). Written to results.json and rendered into
/// docs/benchmarks.md ("Abuse") by `AbuseSection`.
struct AbuseResults {
    /// The fanout scenario's sessions, subscribers per session and messages/s.
    typealias Shape = (sessions: Int, subscribers: Int, rate: Int)

    var command: String
    var started: String
    var repeats: Int
    var seconds: Int
    var shape: Shape
    var abuseRate: Int
    var interleaveSeconds: Int
    var pairs: [(alone: AbuseRun, abused: AbuseRun)] = []
    var interleaved: [(control: InterleavedRun, abused: InterleavedRun)] = []

    /// The labels of the runs whose correctness checks failed.
    var failed: [String] {
        pairs.flatMap { [$0.alone, $0.abused] }.filter { $0.passed != true }.map(\.label)
            + interleaved.flatMap { [$0.control, $0.abused] }.filter { $0.passed != true }.map(\.label)
    }

    var json: JSONValue {
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
struct AbuseRun {
    var label: String
    var abuse: Bool
    var passed: Bool?
    var p50Ms, p99Ms: Double?
    /// Inside the gateway (frame read to ack written): what the harness's core does not move.
    var insideP50Ms, insideP99Ms: Double?
    var deliveriesPerSecond: Double?
    /// Connections the gateway refused during the run, by reason (per_ip_connections, per_ip_rate, ...).
    var refused: [String: Int] = [:]
    var attack: AbuserCounts?

    /// `value / base - 1`, NaN without both (or with a base of 0).
    static func change(_ value: Double?, over base: Double?) -> Double {
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
struct InterleavedRun {
    var label: String
    var abuse: Bool
    var passed: Bool?
    /// The A windows' and the B windows' latency, and the whole run's p99.
    var aP99Ms, bP99Ms, aP50Ms, bP50Ms: Double?
    var aCount, bCount: Int?
    var p99Ms: Double?
    var attack: AbuserCounts?

    /// The B windows' p99 over the A windows', minus one.
    var change: Double { AbuseRun.change(bP99Ms, over: aP99Ms) }

    var json: JSONValue {
        [
            "label": .string(label), "abuse": .bool(abuse), "passed": .optional(passed), "a_p99_ms": .optional(aP99Ms),
            "b_p99_ms": .optional(bP99Ms), "a_p50_ms": .optional(aP50Ms), "b_p50_ms": .optional(bP50Ms),
            "a_count": .optional(aCount), "b_count": .optional(bCount), "p99_ms": .optional(p99Ms),
            "attack": attack?.json ?? .null, "change": .optional(change),
        ]
    }
}
