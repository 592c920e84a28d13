import SwitchboardJSON

/// One fault applied during a chaos run, and how the gateway came back.
public struct ChaosFault: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case terminate, slow
        case pgRestart = "pg-restart"
        case sigkill, sigterm
        /// The webhook receiver killed (SIGKILL), and started again on its port and journal.
        case receiverDown = "webhook-receiver-down"
        case receiverUp = "webhook-receiver-up"

        /// A fault of the receiver: the gateway is not expected to recover from it.
        public var isReceiver: Bool { self == .receiverDown || self == .receiverUp }
    }

    public var kind: Kind
    /// Wall-clock seconds when it was applied.
    public var at: Double
    /// Seconds from the fault until the gateway was ready and storing again
    /// (for `slow`: until the consumer was cut off); nil when it was not.
    public var recoveredSeconds: Double?
    public var note: String

    public init(kind: Kind, at: Double, recoveredSeconds: Double?, note: String) {
        self.kind = kind
        self.at = at
        self.recoveredSeconds = recoveredSeconds
        self.note = note
    }
}

/// How the gateway ended on the drain's SIGTERM, and what its clients saw.
public struct DrainOutcome: Sendable, Equatable {
    public var exitSeconds: Double
    public var exitCode: Int32
    /// Chat connections (visitors and operators) open when the signal went.
    public var connections: Double
    /// What the harness saw, filled in by the drain's verdict (nil in a chaos run, whose SIGTERM is not judged so).
    public var clients: Int?
    public var closedWith1001: Int?
    public var endedWithoutCloseFrame: Int?

    public init(exitSeconds: Double, exitCode: Int32, connections: Double) {
        self.exitSeconds = exitSeconds
        self.exitCode = exitCode
        self.connections = connections
    }
}

/// The verdict on a chaos run from the harness's report and the faults.
public enum ChaosVerdict {
    /// The problems found (none: passed); with `drain`, the drain outcome completed from the report.
    public static func judge(
        report: JSONValue, harnessExit: Int32, faults: [ChaosFault], trafficStart: Double, drain: DrainOutcome?,
        drainMode: Bool
    ) -> (problems: [String], drain: DrainOutcome?) {
        var problems: [String] = []
        let correctness = report["correctness"] ?? [:]
        if harnessExit != 0 || (correctness["failures"].flatMap(PythonFormat.float) ?? 1) != 0 {
            problems.append(
                "the harness found correctness failures (exit \(harnessExit)): \(PythonFormat.json(correctness))")
        }
        if !PythonFormat.truthy(correctness["database_checked"]) {
            problems.append("acked messages were not checked against the database")
        }
        let timeline = report["timeline"]?.arrayValue ?? []
        let last =
            timeline.filter { (PythonFormat.float($0["delivered"]) ?? 0) > 0 }.compactMap {
                PythonFormat.float($0["second"])
            }.max() ?? -1
        let finalFault = faults.map(\.at).max() ?? trafficStart
        if let started = report["started_at"]?.stringValue.flatMap(DriveClock.parseUTC),
            Double(started) + last < finalFault
        {
            problems.append("deliveries did not resume after the last fault")
        }
        guard drainMode else { return (problems, drain) }
        let figures = report["figures"]
        func figure(_ key: String) -> Int { PythonFormat.int(figures?[key]?["value"]) ?? 0 }
        let clients = figure("connections")
        let told = figure("lost_to_going_away")
        let cut = figure("lost_without_close_frame")
        if told != clients || cut != 0 {
            problems.append("drain: \(told) of \(clients) clients got 1001, \(cut) lost without a close frame")
        }
        guard var outcome = drain else {
            problems.append("drain: exit code None after None s (grace \(ChaosOptions.drainGraceSeconds) s)")
            return (problems, nil)
        }
        outcome.clients = clients
        outcome.closedWith1001 = told
        outcome.endedWithoutCloseFrame = cut
        if outcome.exitCode != 0 || outcome.exitSeconds > Double(ChaosOptions.drainGraceSeconds) {
            problems.append(
                "drain: exit code \(outcome.exitCode) after \(PythonFormat.repr(outcome.exitSeconds)) s "
                    + "(grace \(ChaosOptions.drainGraceSeconds) s)")
        }
        return (problems, outcome)
    }
}
