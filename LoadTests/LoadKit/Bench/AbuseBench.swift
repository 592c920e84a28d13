import SwitchboardJSON

#if canImport(Glibc)
import Glibc
#endif

/// The runs of `loadtest bench-abuse`: the fanout scenario alone or beside
/// the abuser, and split by alternating windows with the abuser in the B ones.
struct AbuseBench {
    let context: BenchContext
    let gateway: GatewayProcess
    let shape: AbuseResults.Shape
    let abuseRate: Int

    /// `loadtest abuser` against the gateway for the harness's `seconds` and 8
    /// more (it starts first and outlasts the run). On the harness's core as
    /// an idle-class process (SCHED_IDLE): an attacker's own CPU is not the
    /// gateway's, and must not be taken from the harness that measures, which
    /// preempts it at once whenever it wakes (at nice 10 it could still hold
    /// the core for a slice). Its counts show it still made its attempts at
    /// the full rate. Its output goes to `output`, read by `counts`.
    func startAbuser(seconds: Int, output: String, options: [String] = []) throws -> SpawnedProcess {
        try TextFile.write(output, "")
        return try SpawnedProcess(
            [
                "chrt", "--idle", "0", "taskset", "-c", "1", context.binary("loadtest"), "abuser", String(gateway.port),
                String(seconds + 8), "--rate", String(abuseRate),
            ] + options, output: .file(output))
    }

    /// The abuser's counts once it has finished (within 60 s).
    func counts(_ abuser: SpawnedProcess, output: String) throws -> AbuserCounts {
        guard abuser.wait(timeoutSeconds: 60) != nil else {
            abuser.stop(timeoutSeconds: 1)
            throw DriveError("the abuser did not finish (its output: \(output))")
        }
        guard let line = BenchJSON.lines((try? TextFile.read(output)) ?? "").last else {
            throw DriveError("the abuser printed no counts (exit \(abuser.exit.map(\.description) ?? "?"); \(output))")
        }
        return AbuserCounts(json: line)
    }

    func separate(label: String, seconds: Int, abuse: Bool) throws -> AbuseRun {
        try DatabaseCommands.settle(context.databaseURL)
        let directory = try context.directory(label)
        let before = try context.scrape(gateway, to: TextFile.join(directory, "metrics-before.txt"))
        let output = TextFile.join(context.work, "abuser-\(label).out")
        var abuser: SpawnedProcess?
        if abuse {
            abuser = try startAbuser(seconds: seconds, output: output)
            DriveClock.sleep(seconds: 1)
        }
        let report = try context.fanout(
            gateway, sessions: shape.sessions, subscribers: shape.subscribers, rate: shape.rate, seconds: seconds,
            directory: directory)
        var row = AbuseRun(label: label, abuse: abuse)
        if let abuser { row.attack = try counts(abuser, output: output) }
        let after = try context.scrape(gateway, to: TextFile.join(directory, "metrics-after.txt"))
        let inside = SendStages.between(before: before, after: after).first { $0.name == "total" }
        row.passed = report["passed"]?.boolValue
        row.p50Ms = report.latency("send_to_delivery", "p50_ms")
        row.p99Ms = report.latency("send_to_delivery", "p99_ms")
        row.insideP50Ms = inside?.p50Milliseconds
        row.insideP99Ms = inside?.p99Milliseconds
        row.deliveriesPerSecond = report.figure("deliveries_per_second")
        let earlier = Self.refused(before)
        for (reason, count) in Self.refused(after) { row.refused[reason] = Int(count - (earlier[reason] ?? 0)) }
        context.log(
            "\(label): p50 \(show(row.p50Ms)) ms, p99 \(show(row.p99Ms)) ms, inside the gateway p99 "
                + "\(show(row.insideP99Ms)) ms, \(show(row.deliveriesPerSecond)) deliveries/s"
                + (abuse ? "; attack \(row.attack?.json.text ?? "none"); refused \(row.refused)" : ""))
        return row
    }

    /// One fanout run with its send-to-delivery latency split by alternating
    /// windows; with `abuse`, the abuser attacks in the B windows only, and
    /// without it the two sides are an A/A comparison.
    func interleaved(label: String, seconds: Int, abuse: Bool) throws -> InterleavedRun {
        try DatabaseCommands.settle(context.databaseURL)
        let directory = try context.directory(label)
        let window = String(AbuseSection.windowSeconds)
        let output = TextFile.join(context.work, "abuser-\(label).out")
        let abuser = abuse ? try startAbuser(seconds: seconds, output: output, options: ["--alternate", window]) : nil
        let report = try context.fanout(
            gateway, sessions: shape.sessions, subscribers: shape.subscribers, rate: shape.rate, seconds: seconds,
            directory: directory, extra: ["--alternate", window])
        var row = InterleavedRun(label: label, abuse: abuse)
        if let abuser { row.attack = try counts(abuser, output: output) }
        row.passed = report["passed"]?.boolValue
        row.aP99Ms = report.latency("send_to_delivery_a", "p99_ms")
        row.bP99Ms = report.latency("send_to_delivery_b", "p99_ms")
        row.aP50Ms = report.latency("send_to_delivery_a", "p50_ms")
        row.bP50Ms = report.latency("send_to_delivery_b", "p50_ms")
        row.aCount = report.latency("send_to_delivery_a", "count").map { Int($0) }
        row.bCount = report.latency("send_to_delivery_b", "count").map { Int($0) }
        row.p99Ms = report.latency("send_to_delivery", "p99_ms")
        context.log(
            "\(label): A windows p99 \(show(row.aP99Ms)) ms (\(row.aCount.map(String.init) ?? "None") deliveries), "
                + "B windows p99 \(show(row.bP99Ms)) ms (\(row.bCount.map(String.init) ?? "None")): "
                + BenchFormat.percent(row.change) + (abuse ? " (abuser in the B windows)" : " (no abuser: A/A)"))
        return row
    }

    /// `switchboard_connections_refused_total{reason="R"} N` of an exposition, by reason.
    static func refused(_ exposition: String) -> [String: Double] {
        let prefix = "switchboard_connections_refused_total{reason=\""
        var found: [String: Double] = [:]
        for line in exposition.split(separator: "\n") where line.hasPrefix(prefix) {
            let rest = line.dropFirst(prefix.count)
            guard let quote = rest.firstIndex(of: "\""), rest[quote...].hasPrefix("\"} ") else { continue }
            let reason = rest[..<quote]
            guard !reason.isEmpty, reason.allSatisfy({ $0 == "_" || ($0 >= "a" && $0 <= "z") }),
                let value = Double(rest[rest.index(quote, offsetBy: 3)...])
            else { continue }
            found[String(reason)] = value
        }
        return found
    }

    private func show(_ value: Double?) -> String { value.map { "\($0)" } ?? "None" }
}
