/// docs/benchmarks.md, "Latency": the gateway's send-to-delivery latency
/// against its own durable commit (the floor), shape by shape, where the CPU
/// went, the gateway's stages, and the ramp (`loadtest bench-latency`).
enum LatencySection {
    static let aboveFloorTargetMs = 5.0
    static let title = "Latency: the gateway above its own commit (scripts/bench-latency)"

    /// The section; its heading names the run's date and machine.
    static func render(_ results: LatencyResults, heading: [String] = BenchmarksDoc.heading(title)) -> String {
        var lines = heading + [""]
        lines += [
            "Command: `\(results.command)` (started \(results.started)). One gateway "
                + "(one event loop) pinned to core 0, the load harness to core 1 at nice -5, PostgreSQL (durable: fsync, "
                + "synchronous_commit, full_page_writes on) unpinned. Each shape ran "
                + "\(results.repeats) times for \(results.seconds) s; ranges are over the repeats. The floor is "
                + "`writer-bench --only latency` at the same rate and session count, on core 0 with the gateway idle, "
                + "straight after each run: the writer's submit-to-commit latency on this machine that day. "
                + "*Above floor* is the gateway's send-to-delivery p99 minus the floor's p99, from the same repeat.",
            "",
            "| shape (sessions x subscribers) | msg/s | send-to-delivery p50 | p99 | floor p50 | floor p99 | "
                + "above floor (p99) | target <= 5 ms | deliveries/s | gateway cores |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |",
        ]
        let shapes = groups(results.fanout)
        func spread(_ rows: [LatencyRun], _ decimals: Int = 1, _ value: (LatencyRun) -> Double?) -> String {
            BenchFormat.spread(rows.map(value), decimals: decimals)
        }
        for (shape, rate, rows) in shapes {
            let met = rows.allSatisfy { ($0.aboveP99Ms ?? .infinity) <= aboveFloorTargetMs }
            lines.append(
                "| \(shape) | \(PythonFormat.grouped(rate)) | \(spread(rows) { $0.deliveryP50Ms }) ms | "
                    + "\(spread(rows) { $0.deliveryP99Ms }) ms | \(spread(rows) { $0.floorP50Ms }) ms | "
                    + "\(spread(rows) { $0.floorP99Ms }) ms | \(spread(rows) { $0.aboveP99Ms }) ms | "
                    + "\(met ? "met" : "**MISSED**") | \(spread(rows, 0) { $0.deliveriesPerSecond }) | "
                    + "\(spread(rows, 2) { $0.gatewayCores }) |")
        }
        if results.fanout.contains(where: { !$0.cpu.isEmpty }) {
            lines += [
                "",
                "Where the CPU went while each shape ran: busy cores of the whole machine (2 cores: 2.00 is "
                    + "saturated; its own work, not the time the host gave other guests), the host's steal, and "
                    + "each party's, the median over half-second samples of the run, so its steady "
                    + "state rather than its set-up. Latency above the floor grows steeply as the machine nears "
                    + "saturation; the floor itself is measured with the harness's core idle.",
                "",
                "| shape | msg/s | machine | host steal | gateway | PostgreSQL | harness |",
                "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
            ]
            for (shape, rate, rows) in shapes {
                let cells = ["machine", "steal", "gateway", "postgres", "harness"].map { key in
                    spread(rows, 2) { $0.cpu[key] }
                }
                lines.append("| \(shape) | \(PythonFormat.grouped(rate)) | " + cells.joined(separator: " | ") + " |")
            }
        }
        lines += databaseCost(shapes)
        lines += [
            "",
            "Where the time goes: each stage's p50 / p99 in ms from `switchboard_send_stage_seconds` "
                + "(interpolated within its buckets), per shape, over the repeats. *receive*: the loop woke with the "
                + "frame until the writer took it; *queue*: waiting for its batch to be sent; *commit*: the batch "
                + "sent until its commit returned (a batch sent behind another waits for it here); *handoff*: the "
                + "commit returned until the loop started on the batch; *deliver*: until its acks and fan-out were "
                + "written to the sockets; *total*: the loop woke with the frame until its ack was written.",
            "",
            "| shape | msg/s | " + SendStages.stages.joined(separator: " | ") + " |",
            "| --- | ---: |" + String(repeating: " ---: |", count: SendStages.stages.count),
        ]
        for (shape, rate, rows) in shapes {
            let cells = SendStages.stages.map { stage in
                spread(rows, 2) { $0.stage(stage)?.p50Milliseconds } + " / "
                    + spread(rows, 2) { $0.stage(stage)?.p99Milliseconds }
            }
            lines.append("| \(shape) | \(PythonFormat.grouped(rate)) | " + cells.joined(separator: " | ") + " |")
        }
        lines += [
            "",
            "Ramp (1,000 sessions of 1 visitor + 2 operators, everyone sending, 4 s per step): each step's "
                + "send-to-delivery p99 against the floor's p99 at that step's rate; the highest rate within floor + "
                + "5 ms (and 99% of sends acked) before the first step that is not. Target: at least 20,000 msg/s.",
            "",
            "| repeat | highest rate within floor + 5 ms | steps (rate: p99 / floor p99, ms) |",
            "| --- | ---: | --- |",
        ]
        for (index, ramp) in results.ramp.enumerated() {
            let steps = ramp.steps.map {
                "\(PythonFormat.grouped($0.rate)): \(PythonFormat.fixed($0.p99Ms, 1)) / \(PythonFormat.fixed($0.floorP99Ms, 1))"
            }
            lines.append(
                "| \(index + 1) | \(PythonFormat.grouped(ramp.highestWithinRate)) msg/s | "
                    + steps.joined(separator: "; ") + " |")
        }
        let correct = results.fanout.allSatisfy { $0.passed == true } && results.ramp.allSatisfy { $0.passed == true }
        lines += [
            "",
            "Correctness (gaps, duplicates, reorders, lost acks, acked messages in the database): "
                + (correct ? "every run passed" : "**a run failed: see its report**") + ".",
            "",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// PostgreSQL's CPU per stored message, in all and by role (issue 36), when the runs measured it.
    static func databaseCost(_ shapes: [(shape: String, rate: Int, rows: [LatencyRun])]) -> [String] {
        let runs = shapes.flatMap(\.rows).filter { $0.postgresPerStored != nil }
        guard !runs.isEmpty else { return [] }
        // A column for each role that costs a microsecond a message in some
        // run; the idle ones (the webhook workers without endpoints, the
        // postmaster) are summed as "the rest".
        var totals: [String: Double] = [:]
        var costly: Set<String> = []
        for run in runs {
            for (role, seconds) in run.postgresByRole {
                totals[role, default: 0] += seconds
                if seconds * 1e6 / run.stored >= 1 { costly.insert(role) }
            }
        }
        let roles = totals.sorted { $0.value > $1.value }.map(\.key).filter(costly.contains)
        let rest = Set(totals.keys).subtracting(costly)
        var lines = [
            "",
            "PostgreSQL's CPU per stored message, in µs: CPU-seconds of every PostgreSQL process over the whole "
                + "run (from /proc, each client backend named by its application_name, the others by their "
                + "title: *background* is the checkpointer, the WAL writer and the like) over the messages the "
                + "gateway stored meanwhile (`switchboard_messages_stored_total`).",
            "",
            "| shape | msg/s | PostgreSQL | " + roles.joined(separator: " | ") + (rest.isEmpty ? "" : " | the rest")
                + " |",
            "| --- | ---: | ---: |" + String(repeating: " ---: |", count: roles.count + (rest.isEmpty ? 0 : 1)),
        ]
        for (shape, rate, rows) in shapes {
            let measured = rows.filter { $0.postgresPerStored != nil }
            guard !measured.isEmpty else { continue }
            var cells = roles.map { role in
                BenchFormat.spread(measured.map { ($0.postgresByRole[role] ?? 0) * 1e6 / $0.stored }, decimals: 1)
            }
            if !rest.isEmpty {
                cells.append(
                    BenchFormat.spread(
                        measured.map { run in rest.reduce(0) { $0 + (run.postgresByRole[$1] ?? 0) } * 1e6 / run.stored
                        },
                        decimals: 1))
            }
            lines.append(
                "| \(shape) | \(PythonFormat.grouped(rate)) | "
                    + BenchFormat.spread(measured.map(\.postgresPerStored), decimals: 1) + " | "
                    + cells.joined(separator: " | ") + " |")
        }
        let indexing = shapes.compactMap { shape, _, rows -> String? in
            let figures = rows.compactMap(\.indexerPerIndexed)
            return figures.isEmpty ? nil : "\(shape) " + BenchFormat.spread(figures, decimals: 1)
        }
        if !indexing.isEmpty {
            lines += [
                "",
                "The search indexer runs behind the writer and yields while the gateway is busy, so its column "
                    + "moves with how much of its work fell inside the run. Its CPU per message it indexed "
                    + "(`switchboard_search_indexed_total`), in µs: " + indexing.joined(separator: "; ") + ".",
            ]
        }
        return lines
    }

    /// The runs by shape and rate, in the order the shapes first ran.
    static func groups(_ runs: [LatencyRun]) -> [(shape: String, rate: Int, rows: [LatencyRun])] {
        var order: [(shape: String, rate: Int, rows: [LatencyRun])] = []
        for run in runs {
            if let index = order.firstIndex(where: { $0.shape == run.shape && $0.rate == run.rate }) {
                order[index].rows.append(run)
            } else {
                order.append((run.shape, run.rate, [run]))
            }
        }
        return order
    }
}
