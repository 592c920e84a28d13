import SwitchboardJSON

/// What `loadtest bench-routing` measured, for results.json and the section.
struct RoutingResults: Sendable {
    var command: String
    var started: String
    var quick: Bool
    var machineLoad: String = ""
    var assignment: [RoutingRunRow] = []
    var backlog: [RoutingRunRow] = []
    var cost: [CostRow] = []

    var json: JSONValue {
        [
            "command": .string(command), "started": .string(started), "quick": .bool(quick),
            "load_average": .string(machineLoad), "assignment": .array(assignment.map(\.json)),
            "backlog": .array(backlog.map(\.json)), "cost": .array(cost.map(\.json)),
        ]
    }
}

/// One `loadtest routing` run: its report's figures, and the routing passes
/// the nodes counted meanwhile.
struct RoutingRunRow: Sendable {
    var label: String
    var passed: Bool?
    var violations: Double?
    var visitors, operators, capacity, rate, longestQueue: Double?
    var p50Ms, p90Ms, p99Ms, maxMs: Double?
    var backlogSeconds, backlogPerSecond: Double?
    var passes = 0.0
    var passSeconds = 0.0
    var cores: [String: Double] = [:]

    init(label: String, report: JSONValue) {
        self.label = label
        passed = report["passed"]?.boolValue
        violations = report["correctness"]?["routing_violations"]?.doubleValue
        visitors = report.figure("visitors")
        operators = report.figure("operators")
        capacity = report.figure("capacity")
        longestQueue = report.figure("longest_queue")
        backlogSeconds = report.figure("backlog_seconds")
        backlogPerSecond = report.figure("backlog_assignments_per_second")
        p50Ms = report.latency("time_to_assignment", "p50_ms")
        p90Ms = report.latency("time_to_assignment", "p90_ms")
        p99Ms = report.latency("time_to_assignment", "p99_ms")
        maxMs = report.latency("time_to_assignment", "max_ms")
        rate = report["parameters"]?["rate"]?.stringValue.flatMap(Double.init)
    }

    /// A pass's mean time in milliseconds, the wait for the workspace's lock included.
    var meanPassMs: Double? { passes > 0 ? passSeconds / passes * 1000 : nil }

    var json: JSONValue {
        [
            "label": .string(label), "passed": .optional(passed), "routing_violations": .optional(violations),
            "visitors": .optional(visitors), "operators": .optional(operators), "capacity": .optional(capacity),
            "rate": .optional(rate), "longest_queue": .optional(longestQueue), "p50_ms": .optional(p50Ms),
            "p90_ms": .optional(p90Ms), "p99_ms": .optional(p99Ms), "max_ms": .optional(maxMs),
            "backlog_s": .optional(backlogSeconds), "backlog_per_s": .optional(backlogPerSecond),
            "passes": .optional(passes), "pass_seconds": .optional(passSeconds), "cores": .numbers(cores),
        ]
    }
}

/// One conversations run of the cost comparison.
struct CostRow: Sendable {
    var label: String
    var mode: String
    /// "throughput" (offered more than is stored) or "latency" (a rate kept up with).
    var kind: String
    var rate: Int
    var round: Int
    /// Which of the two gateways side by side (0: started and loaded first),
    /// and whether the round was the A/A control (`manual` beside `manual`).
    var side = 0
    var control = false
    var passed = false
    var storedPerSecond, p50Ms, p99Ms: Double?
    var passes = 0.0
    var cores: [String: Double] = [:]

    /// CPU microseconds per stored message of a party ("gateway", "postgres", "machine").
    func microsecondsPerMessage(_ party: String) -> Double? {
        guard let busy = cores[party], let stored = storedPerSecond, stored > 0 else { return nil }
        return busy * 1e6 / stored
    }

    var json: JSONValue {
        [
            "label": .string(label), "mode": .string(mode), "kind": .string(kind), "rate": .int(rate),
            "round": .int(round), "side": .int(side), "control": .bool(control), "passed": .bool(passed),
            "stored_per_s": .optional(storedPerSecond),
            "p50_ms": .optional(p50Ms), "p99_ms": .optional(p99Ms), "passes": .optional(passes),
            "cores": .numbers(cores),
        ]
    }
}
