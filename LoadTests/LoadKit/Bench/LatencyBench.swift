import SwitchboardJSON

/// The measurements of `loadtest bench-latency`: a fan-out shape against its
/// floor, and a ramp whose every step is held to that rate's floor + 5 ms.
struct LatencyBench {
    let context: BenchContext
    let gateway: GatewayProcess
    let seconds: Int
    let quick: Bool
    /// The subscribers answer each message with `read` (`--reads`).
    var reads = false

    /// writer-bench at the gateway's place (core 0, the gateway idle): submit
    /// to commit, open loop; its "latency" line.
    func floor(sessions: Int, rate: Int) throws -> JSONValue {
        try DatabaseCommands.settle(context.databaseURL)
        let run = try CapturedCommand.check([
            "taskset", "-c", "0", context.binary("writer-bench"), "--database-url", context.databaseURL, "--only",
            "latency", "--sessions", String(sessions), "--rate", String(rate), "--seconds", String(max(3, seconds / 2)),
        ])
        guard let line = BenchJSON.line(kind: "latency", in: run.standardOutput) else {
            throw DriveError("writer-bench printed no latency line")
        }
        return line
    }

    func fanout(label: String, sessions: Int, subscribers: Int, rate: Int) throws -> LatencyRun {
        try DatabaseCommands.settle(context.databaseURL)
        let directory = try context.directory(label)
        let before = try context.scrape(gateway, to: TextFile.join(directory, "metrics-before.txt"))
        let sampler = CPUSampler(named: [("harness", "loadtest fanout"), ("gateway", "switchboard serve")])
        let roles = BackendCPU(databaseURL: context.databaseURL)
        roles.start()
        let report: JSONValue
        do {
            report = try sampler.measure { () throws in
                try context.fanout(
                    gateway, sessions: sessions, subscribers: subscribers, rate: rate, seconds: seconds,
                    directory: directory, extra: reads ? ["--reads"] : [])
            }
        } catch {
            _ = roles.stop()
            throw error
        }
        let byRole = roles.stop()
        let after = try context.scrape(gateway, to: TextFile.join(directory, "metrics-after.txt"))
        let base = try floor(sessions: sessions, rate: rate)
        var row = LatencyRun(label: label, shape: "\(sessions) x \(subscribers)", rate: rate)
        row.passed = report["passed"]?.boolValue
        row.deliveryP50Ms = report.latency("send_to_delivery", "p50_ms")
        row.deliveryP99Ms = report.latency("send_to_delivery", "p99_ms")
        row.ackP99Ms = report.latency("send_to_ack", "p99_ms")
        row.deliveriesPerSecond = report.figure("deliveries_per_second")
        row.gatewayCores = report.figure("gateway_cpu_cores")
        row.floorP50Ms = base["p50_ms"]?.doubleValue
        row.floorP99Ms = base["p99_ms"]?.doubleValue
        row.stages = SendStages.between(before: before, after: after)
        row.cpu = sampler.cores()
        let stored = "switchboard_messages_stored_total"
        row.stored = (PrometheusText.value(stored, in: after) ?? 0) - (PrometheusText.value(stored, in: before) ?? 0)
        row.postgresByRole = byRole
        let indexed = "switchboard_search_indexed_total"
        row.indexed = (PrometheusText.value(indexed, in: after) ?? 0) - (PrometheusText.value(indexed, in: before) ?? 0)
        context.log(
            "\(label): PostgreSQL per stored message: \(row.postgresPerStoredText); search indexer "
                + "\(row.indexerPerIndexed.map { PythonFormat.fixed($0, 1) } ?? "-") us per indexed message "
                + "(\(Int(row.indexed)) indexed)"
                + (reads
                    ? "; reads sent \(Int(report.figure("reads_sent") ?? 0)), refused "
                        + "\(Int(report.figure("reads_refused") ?? 0))" : ""))
        context.log(
            "\(label): delivery p50 \(show(row.deliveryP50Ms)) p99 \(show(row.deliveryP99Ms)) ms; floor p50 "
                + "\(show(row.floorP50Ms)) p99 \(show(row.floorP99Ms)) ms; above \(show(row.aboveP99Ms)) ms")
        return row
    }

    /// The ramp with no latency bound of its own (it stops only when acks fall
    /// behind); each step's p99 is then held to that rate's floor + 5 ms, up
    /// to the first step that is not within it.
    func ramp(label: String, rates: [Int]) throws -> LatencyRamp {
        try DatabaseCommands.settle(context.databaseURL)
        let directory = try context.directory(label)
        let sessions = quick ? 100 : 1000
        let step = rates.count > 1 ? rates[1] - rates[0] : rates[0]
        let report = try context.harness(
            "ramp", urls: [gateway.url],
            options: [
                "--sessions", String(sessions), "--operators", "2", "--start", String(rates[0]), "--step", String(step),
                "--max", String(rates[rates.count - 1]), "--step-seconds", "4", "--p99-bound-ms", "100000",
            ], directory: directory
        ).report
        var ramp = LatencyRamp(label: label)
        ramp.passed = report["passed"]?.boolValue
        for note in report["notes"]?.arrayValue ?? [] {
            guard let text = note.stringValue, let measured = RampNote(text) else { continue }
            let floorP99 = try floor(sessions: sessions, rate: measured.rate)["p99_ms"]?.doubleValue ?? .nan
            let within =
                measured.p99Ms <= floorP99 + LatencySection.aboveFloorTargetMs
                && Double(measured.acked) >= 0.99 * Double(measured.sent)
            ramp.steps.append(
                LatencyRamp.Step(
                    rate: measured.rate, p99Ms: measured.p99Ms, floorP99Ms: floorP99, within: within,
                    ackedShare: measured.sent > 0
                        ? PythonFormat.round(Double(measured.acked) / Double(measured.sent), 4) : 0
                ))
            context.log(
                "\(label) step \(measured.rate): p99 \(measured.p99Ms) ms, floor p99 \(floorP99) ms: "
                    + (within ? "within" : "above"))
            if !within { break }
        }
        return ramp
    }

    private func show(_ value: Double?) -> String { value.map { "\($0)" } ?? "None" }
}

/// One step of the ramp's report notes: "step 2500 msg/s: sent 10000, acked
/// 10000, p99 delivery 12.5 ms: sustained".
struct RampNote: Equatable {
    var rate: Int
    var sent: Int
    var acked: Int
    var p99Ms: Double

    init?(_ note: String) {
        let words = note.split(separator: " ").map { $0.trimmingCharacters(in: ",:") }
        guard let at = words.firstIndex(of: "step"), words.count >= at + 11,
            words[at + 2] == "msg/s", words[at + 3] == "sent", words[at + 5] == "acked", words[at + 7] == "p99",
            words[at + 8] == "delivery", words[at + 10] == "ms",
            let rate = Int(words[at + 1]), let sent = Int(words[at + 4]), let acked = Int(words[at + 6]),
            words[at + 9].allSatisfy({ $0 == "." || $0.isNumber }), let p99 = Double(words[at + 9])
        else { return nil }
        self.rate = rate
        self.sent = sent
        self.acked = acked
        p99Ms = p99
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in characters: String) -> String {
        var text = self
        while let last = text.last, characters.contains(last) { text = text.dropLast() }
        return String(text)
    }
}
