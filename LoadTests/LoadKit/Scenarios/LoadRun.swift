import SwitchboardSystem

/// Runs one scenario end to end: shards on their threads, the merge, the
/// database check, and the report.
public enum LoadRun {
    public struct SetupError: Error, CustomStringConvertible {
        public let description: String
    }

    public static func run(_ options: LoadOptions, log: (String) -> Void = { _ in }) throws(SetupError) -> RunReport {
        Posix.ignoreSIGPIPE()
        _ = Posix.raiseOpenFileLimit()
        let workspace = options.workspace.isEmpty ? RandomUUID.make() : options.workspace
        let probe = options.gatewayPID > 0 ? GatewayProbe(pid: options.gatewayPID) : nil
        if let probe, !probe.isAvailable {
            throw SetupError(description: "no process \(probe.pid) to read (--gateway-pid)")
        }
        if options.scenario == "routing" {
            return try RoutingScenario.run(options, workspace: workspace, log: log)
        }
        let startedAt = WallClock.rfc3339Now()
        let timelineStart = MonotonicClock.nanoseconds()

        var contexts: [ScenarioRuns.Context] = []
        var firstIndex = 0
        var firstSession = 0
        for index in 0..<options.threads {
            let loop: ClientLoop
            do {
                loop = try ClientLoop(host: options.host, port: options.port, path: options.path)
            } catch {
                throw SetupError(description: "cannot create a client loop: \(error)")
            }
            let shard = Shard(
                loop: loop, nodes: options.endpoints, bodyBytes: options.bodyBytes, sendsReads: options.sendsReads,
                timelineStart: timelineStart)
            let sessions = share(options.sessions, of: options.threads, index)
            let connections = share(options.connections, of: options.threads, index)
            let context = ScenarioRuns.Context(
                options: options, shard: shard, sessions: sessions, connections: connections,
                rate: options.rate / Double(options.threads), firstIndex: firstIndex, firstSession: firstSession,
                workspace: workspace, probe: index == 0 ? probe : nil)
            contexts.append(context)
            firstIndex += 1 << 20
            firstSession += context.sessionCount
        }
        let nodes = options.endpoints.count
        log(
            "running \(options.scenario) on \(options.threads) client loop(s), workspace \(workspace)"
                + (nodes > 1 ? ", over \(nodes) nodes" : ""))
        let outcomes = runShards(contexts)

        let setupErrors = outcomes.flatMap(\.shard.setupErrors)
        if !setupErrors.isEmpty {
            throw SetupError(description: "set-up failed: " + setupErrors.prefix(5).joined(separator: "; "))
        }
        var report = ReportBuilder(options: options, outcomes: outcomes, startedAt: startedAt).build()
        if !options.databaseURL.isEmpty {
            log(
                "checking \(report.figures.first(where: { $0.key == "acked" }).map { Int($0.value) } ?? 0) acked messages in the database"
            )
            do {
                let check = try DatabaseCheck.verify(
                    databaseURL: options.databaseURL, sessions: outcomes.flatMap(\.shard.sessions))
                report.correctness.databaseChecked = true
                report.correctness.verifiedInDatabase = check.verified
                report.correctness.lostAcks += check.lost
                if !check.examples.isEmpty {
                    report.notes.append("acked but not stored: " + check.examples.joined(separator: ", "))
                }
            } catch {
                throw SetupError(description: "database check failed: \(error)")
            }
        } else if options.scenario != "idle" {
            report.notes.append("acked messages were not checked against the database (no --database-url)")
        }
        return report
    }

    /// The `index`-th of `parts` near-equal shares of `total`.
    static func share(_ total: Int, of parts: Int, _ index: Int) -> Int {
        total / parts + (index < total % parts ? 1 : 0)
    }

    /// One thread per shard (not a pool: every shard must run at the same time).
    private static func runShards(_ contexts: [ScenarioRuns.Context]) -> [ShardOutcome] {
        if contexts.count == 1 { return [ScenarioRuns.run(contexts[0])] }
        let slots = ShardSlots(contexts)
        let threads = contexts.indices.map { index in
            // Each thread owns one shard and writes only its own slot.
            NamedThread.spawn(name: "loadtest-\(index)") { slots.run(index) }
        }
        for thread in threads { thread.join() }
        return slots.outcomes.map { $0! }
    }
}

/// The shards' contexts and outcomes, handed to their threads; each thread
/// touches only its own index, and the caller reads them after joining.
private final class ShardSlots: @unchecked Sendable {
    let contexts: [ScenarioRuns.Context]
    var outcomes: UnsafeMutableBufferPointer<ShardOutcome?>

    init(_ contexts: [ScenarioRuns.Context]) {
        self.contexts = contexts
        outcomes = .allocate(capacity: contexts.count)
        outcomes.initialize(repeating: nil)
    }

    deinit {
        _ = outcomes.deinitialize()
        outcomes.deallocate()
    }

    func run(_ index: Int) {
        outcomes[index] = ScenarioRuns.run(contexts[index])
    }
}
