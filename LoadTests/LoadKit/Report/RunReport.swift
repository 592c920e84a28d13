/// Everything one scenario run found, in a form every report writer reads.
public struct RunReport: Sendable {
    /// `conversations`, `fanout`, `idle`, `storm` or `ramp`.
    public var scenario: String
    /// The sizes and options the run used, in display order (name, value).
    public var parameters: [(name: String, value: String)]
    /// Local time the run started, RFC 3339.
    public var startedAt: String
    /// Seconds of traffic, set-up and drain excluded.
    public var durationSeconds: Double
    /// The headline numbers, in display order.
    public var figures: [Figure]
    /// One entry per measured latency (send-to-ack, send-to-delivery, handshake...).
    public var latencies: [LatencySummary]
    /// Per-second counts over the run, for the throughput chart.
    public var timeline: [TimelinePoint]
    public var correctness: Correctness
    /// Targets the run was held to; a missed target is reported, not a failure.
    public var targets: [TargetCheck]
    /// Free-form remarks (a ramp's steps, the harness falling behind its schedule...).
    public var notes: [String]
    /// A cluster's nodes, in `--url` order, with the connections each was
    /// given; empty for one node, whose report stays as it always was.
    public var nodes: [NodeShare]

    public init(
        scenario: String, parameters: [(name: String, value: String)] = [], startedAt: String = "",
        durationSeconds: Double = 0, figures: [Figure] = [], latencies: [LatencySummary] = [],
        timeline: [TimelinePoint] = [], correctness: Correctness = Correctness(), targets: [TargetCheck] = [],
        notes: [String] = [], nodes: [NodeShare] = []
    ) {
        self.scenario = scenario
        self.parameters = parameters
        self.startedAt = startedAt
        self.durationSeconds = durationSeconds
        self.figures = figures
        self.latencies = latencies
        self.timeline = timeline
        self.correctness = correctness
        self.targets = targets
        self.notes = notes
        self.nodes = nodes
    }

    /// A run passes when it saw no correctness failure; speed never makes up for one.
    public var passed: Bool { correctness.failures == 0 }
}

/// One node of a cluster and how many of the run's connections went to it.
public struct NodeShare: Sendable, Equatable {
    public var url: String
    public var connections: Int

    public init(url: String, connections: Int) {
        self.url = url
        self.connections = connections
    }
}

/// One headline number: "stored messages/s" 51234 "msg/s".
public struct Figure: Sendable, Equatable {
    /// Stable identifier for the JSON output and scripts (`stored_per_second`).
    public var key: String
    public var label: String
    public var value: Double
    public var unit: String

    public init(key: String, label: String, value: Double, unit: String) {
        self.key = key
        self.label = label
        self.value = value
        self.unit = unit
    }
}

/// A latency distribution, in milliseconds, summarised from an HdrHistogram.
public struct LatencySummary: Sendable, Equatable {
    /// Stable identifier (`send_to_ack`, `send_to_delivery`, `handshake`).
    public var key: String
    public var label: String
    public var count: UInt64
    public var p50: Double
    public var p90: Double
    public var p99: Double
    public var p999: Double
    public var max: Double
    /// (percentile 0...100, milliseconds) pairs for the distribution chart,
    /// ascending in percentile, ending at 100 with `max`.
    public var curve: [CurvePoint]

    public init(
        key: String, label: String, count: UInt64, p50: Double, p90: Double, p99: Double, p999: Double,
        max: Double, curve: [CurvePoint]
    ) {
        self.key = key
        self.label = label
        self.count = count
        self.p50 = p50
        self.p90 = p90
        self.p99 = p99
        self.p999 = p999
        self.max = max
        self.curve = curve
    }
}

public struct CurvePoint: Sendable, Equatable {
    public var percentile: Double
    public var milliseconds: Double

    public init(percentile: Double, milliseconds: Double) {
        self.percentile = percentile
        self.milliseconds = milliseconds
    }
}

/// Counts for one second of the run (second 0 = traffic start).
public struct TimelinePoint: Sendable, Equatable {
    public var second: Int
    public var sent: Int
    public var acked: Int
    public var delivered: Int
    /// Connections completed in that second (storm, idle).
    public var connected: Int

    public init(second: Int, sent: Int = 0, acked: Int = 0, delivered: Int = 0, connected: Int = 0) {
        self.second = second
        self.sent = sent
        self.acked = acked
        self.delivered = delivered
        self.connected = connected
    }
}

/// What the run checked besides speed. Every field but `errors` and
/// `unanswered` is a failure when non-zero; `unanswered` is one too (a send
/// that got neither an ack nor an error before the drain deadline).
public struct Correctness: Sendable, Equatable {
    /// Seqs a subscriber never received (skipped and never filled).
    public var gaps: Int = 0
    /// Deliveries of a seq the subscriber had already received.
    public var duplicates: Int = 0
    /// Deliveries that arrived after a higher seq of the same session.
    public var reorders: Int = 0
    /// Acked messages that the database does not hold (or holds with another seq).
    public var lostAcks: Int = 0
    /// Sends that got no reply at all before the drain deadline.
    public var unanswered: Int = 0
    /// Connections the gateway closed or refused unexpectedly, plus frames that
    /// were not a JSON object (each is noted in the report).
    public var unexpectedCloses: Int = 0
    /// Acked messages checked against the database (0 when no database was given).
    public var verifiedInDatabase: Int = 0
    /// Whether the database check ran.
    public var databaseChecked: Bool = false
    /// `error` frames by code (`overloaded`, `rate_limited`...): reported, not failures.
    public var errors: [String: Int] = [:]
    /// The routing scenario's broken promises (`RoutingInvariants`), and
    /// whether it judged any: other scenarios report neither.
    public var routingViolations: Int = 0
    public var routingChecked: Bool = false

    public init() {}

    public var failures: Int {
        gaps + duplicates + reorders + lostAcks + unanswered + unexpectedCloses + routingViolations
    }
}

/// A target the run is held to (`ScenarioTargets`, or the command line), or
/// a figure reported beside them without a goal, and what the run measured.
public struct TargetCheck: Sendable, Equatable {
    /// Stable name for tools: "stored_per_second", "send_to_delivery_p99_ms"...
    public var key: String
    public var label: String
    /// The goal as text (ASCII, for the console table): ">= 50,000 msg/s", "< 25 ms"; "none (report only)".
    public var target: String
    public var measured: String
    /// The measured number (in `unit`), and the goal it is compared with (nil: report only).
    public var value: Double?
    public var goal: Double?
    public var unit: String
    /// nil for a figure reported without a goal.
    public var met: Bool?

    public init(
        key: String = "", label: String, target: String, measured: String, value: Double? = nil,
        goal: Double? = nil, unit: String = "", met: Bool?
    ) {
        self.key = key
        self.label = label
        self.target = target
        self.measured = measured
        self.value = value
        self.goal = goal
        self.unit = unit
        self.met = met
    }

    /// At least `goal`.
    static func atLeast(_ key: String, _ label: String, value: Double, goal: Double, unit: String) -> TargetCheck {
        TargetCheck(
            key: key, label: label, target: ">= \(ReportNumberFormat.grouped(Int(goal))) \(unit)",
            measured: "\(ReportNumberFormat.grouped(Int(value))) \(unit)", value: value, goal: goal, unit: unit,
            met: value >= goal)
    }

    /// Under `goal`; never met without a measurement.
    static func under(
        _ key: String, _ label: String, value: Double, goal: Double, unit: String, measured: Bool = true
    ) -> TargetCheck {
        TargetCheck(
            key: key, label: label, target: "< \(ReportNumberFormat.figure(goal)) \(unit)",
            measured: measured ? "\(ReportNumberFormat.figure(value)) \(unit)" : "n/a", value: measured ? value : nil,
            goal: goal, unit: unit, met: measured && value < goal)
    }

    /// A figure shown beside the targets, with no goal.
    static func reported(_ key: String, _ label: String, value: Double, unit: String, note: String = "") -> TargetCheck
    {
        TargetCheck(
            key: key, label: label, target: "none (report only)",
            measured: "\(ReportNumberFormat.grouped(Int(value))) \(unit)" + note, value: value, unit: unit, met: nil)
    }
}
