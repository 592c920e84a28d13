import SwitchboardPostgres
import SwitchboardSystem

#if canImport(Glibc)
import Glibc
#endif

/// The `routing` scenario end to end: operators online, visitors arriving,
/// the drain, then what only the database knows (every acked first message
/// stored, the order of the passes), and the report.
enum RoutingScenario {
    static func run(
        _ options: LoadOptions, workspace: String, log: (String) -> Void
    ) throws(LoadRun.SetupError)
        -> RunReport
    {
        let startedAt = WallClock.rfc3339Now()
        let run = try RoutingRun(options: options, workspace: workspace)
        log(
            "running routing: \(options.operators) operators, \(options.sessions) visitors at \(Int(options.rate))/s, "
                + "workspace \(workspace), over \(options.endpoints.count) node(s)")
        if let failure = run.signIn() ?? run.setCapacities() {
            run.closeAll()
            throw LoadRun.SetupError(description: "set-up failed: \(failure)")
        }
        let probe = options.gatewayPID > 0 ? GatewayProbe(pid: options.gatewayPID) : nil
        let harness = GatewayProbe(pid: getpid())
        let cpuBefore = (probe?.cpuSeconds(), harness.cpuSeconds())
        let started = MonotonicClock.nanoseconds()
        let drained = run.traffic()
        let wall = Double(MonotonicClock.nanoseconds() - started) / 1e9
        let cpuAfter = (probe?.cpuSeconds(), harness.cpuSeconds())
        run.closeAll()

        var passOrder: [String: Int64]?
        var correctness = Correctness()
        let sessions = run.visitors.map(\.state)
        if !options.databaseURL.isEmpty {
            do {
                passOrder = try firstAssigningPasses(options.databaseURL, sessions: sessions.map(\.id))
                let check = try DatabaseCheck.verify(databaseURL: options.databaseURL, sessions: sessions)
                correctness.databaseChecked = true
                correctness.verifiedInDatabase = check.verified
                correctness.lostAcks = check.lost
            } catch {
                throw LoadRun.SetupError(description: "database check failed: \(error)")
            }
        }
        run.invariants.finish(passOrder: passOrder)
        var report = RoutingReport(run: run, options: options, startedAt: startedAt).build(
            correctness: correctness, drained: drained, wallSeconds: wall)
        if let before = cpuBefore.0, let after = cpuAfter.0, wall > 0 {
            report.figures.append(
                Figure(
                    key: "gateway_cpu_cores", label: "gateway CPU (cores busy)", value: (after - before) / wall,
                    unit: "cores"))
        }
        if let before = cpuBefore.1, let after = cpuAfter.1, wall > 0 {
            report.figures.append(
                Figure(
                    key: "harness_cpu_cores", label: "harness CPU (cores busy)", value: (after - before) / wall,
                    unit: "cores"))
        }
        return report
    }

    /// For each session, the transaction id of the pass that first assigned
    /// it. Passes of one workspace hold its advisory lock in turn and write
    /// nothing before they hold it, so their transaction ids (assigned at
    /// the first write) follow the order in which they held the lock.
    static func firstAssigningPasses(
        _ databaseURL: String, sessions: [String]
    ) throws(PostgresError) -> [String: Int64] {
        let ids = sessions.filter { !$0.isEmpty }
        guard !ids.isEmpty else { return [:] }
        let connection = try PostgresConnection(databaseURL)
        let rows = try connection.query(
            """
            SELECT session_id::text, min(xmin::text::bigint) FROM chats
             WHERE session_id = ANY($1::uuid[]) AND kind = 'event' AND meta->>'action' = 'assigned'
             GROUP BY session_id
            """, ["{" + ids.joined(separator: ",") + "}"])
        var order: [String: Int64] = [:]
        for row in 0..<rows.rowCount {
            guard let session = rows.string(row, 0), let xid = rows.int(row, 1) else { continue }
            order[session] = Int64(xid)
        }
        return order
    }
}
