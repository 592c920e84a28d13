/// docs/benchmarks.md, "Routing": time from a visitor's first message to
/// its operator over two nodes, a queue given out at once, and what routing
/// costs the chat path, `manual` against `least_busy` in one run
/// (`loadtest bench-routing`).
enum RoutingSection {
    static let title = "Routing: time to an operator, and what routing costs the chat path (scripts/bench-routing)"
    /// least_busy within this share of manual, for throughput and p99.
    static let costTarget = 0.05

    static func render(_ results: RoutingResults, heading: [String] = BenchmarksDoc.heading(title)) -> String {
        var lines = heading + [""]
        lines += [
            "Command: `\(results.command)` (started \(results.started)). Gateways (one event loop each) pinned "
                + "to core 0, the harness to core 1, PostgreSQL (durable) unpinned; load average when the run "
                + "began: \(results.machineLoad) (the machine's two cores are shared with other work: the CPU "
                + "columns say where they went). Every routing run is judged by the harness's invariants (capacity, "
                + "never twice, first come first served against the passes' order in PostgreSQL, every session "
                + "assigned, nothing lost): a violation fails it."
        ]
        lines += assignmentLines(results)
        lines += costLines(results.cost)
        return lines.joined(separator: "\n") + "\n"
    }

    static func assignmentLines(_ results: RoutingResults) -> [String] {
        var lines = [
            "", "### First message to assignment", "",
            "`loadtest routing` over two nodes (PostgreSQL bus): operators spread over both, each online with "
                + "capacity 5 and away 1 s of every 8; visitors arrive at the rate, each opens a session and writes "
                + "once; operators close each session after 0.5-1.5 s. Time from the visitor's first message "
                + "written to the first `session.updated` showing its operator (a visitor that had to queue waits "
                + "for a close).",
            "",
            "| run | operators | new sessions/s | sessions | p50 | p90 | p99 | max | most waiting | passes | "
                + "mean pass | judged | machine | gateways | PostgreSQL | harness |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |",
        ]
        for row in results.assignment {
            lines.append(
                "| \(row.label) | \(n(row.operators)) | \(n(row.rate)) | \(n(row.visitors)) | \(ms(row.p50Ms)) | "
                    + "\(ms(row.p90Ms)) | \(ms(row.p99Ms)) | \(ms(row.maxMs)) | \(n(row.longestQueue)) | "
                    + "\(n(row.passes)) | \(ms(row.meanPassMs)) | \(verdict(row)) | "
                    + cores(row.cores, ["machine", "gateways", "postgres", "harness"])
                    + " |")
        }
        lines += [
            "", "### A queue given out at once (decisions per second of one workspace)", "",
            "Every operator away while all visitors arrive and queue, then all online at once (each one's "
                + "capacity raised to 40 with `PATCH /api/v1/operators/{id}` before, so the queue fits): the time from the first `presence.set online` to the last assignment seen, "
                + "as assignments per second: one workspace's decisions, its passes one at a time under its lock. "
                + "`RoutingPassTests.decisionsPerSecondForOneWorkspace` measures a single pass over 2,000 queued "
                + "sessions at 8,200-12,300 decisions/s (docs/routing.md); here the operators' `online`s arrive "
                + "one by one, so the queue goes out over several passes, each announced to every console. "
                + "Passes count the whole run (each visitor's first message asks for one while all are away).",
            "",
            "| run | operators | queued | given out in | assignments/s | passes | mean pass | judged |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
        ]
        for row in results.backlog {
            lines.append(
                "| \(row.label) | \(n(row.operators)) | \(n(row.visitors)) | "
                    + "\(row.backlogSeconds.map { PythonFormat.fixed($0, 3) + " s" } ?? "n/a") | "
                    + "\(n(row.backlogPerSecond)) | \(n(row.passes)) | \(ms(row.meanPassMs)) | "
                    + "\(verdict(row)) |")
        }
        return lines
    }

    static func costLines(_ rows: [CostRow]) -> [String] {
        var lines = [
            "", "### What routing costs the chat path", "",
            "Two gateways side by side, one with `routing.mode` `manual` and one with `least_busy` (both on "
                + "core 0), each under its own `loadtest conversations` (sessions of a visitor and two operators; "
                + "both harnesses on core 1) at the same rate at the same time, so that whatever else the shared "
                + "machine does falls on both alike; fresh gateways each round, the order they start and are "
                + "loaded swapped every round. *throughput* offers each more than the machine stores (stored "
                + "messages/s is the throughput: each gateway's share of the same machine), *latency* a rate both "
                + "keep up with (send-to-delivery p99). The conversations' operators never choose a status, so "
                + "under `least_busy` every session waits in the queue all run long: the most routing can cost "
                + "this path. CPU per stored message from /proc (a gateway's busy cores / its stored messages per "
                + "second; PostgreSQL's is both gateways' together).",
            "",
            "| run | mode | offered msg/s | stored msg/s | p50 | p99 | passes | gateway µs/msg | PostgreSQL cores "
                + "(both) | machine cores | verdict |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
        ]
        for row in rows {
            lines.append(
                "| \(row.kind) \(row.round)\(row.control ? " (control)" : "") | \(row.mode) | \(PythonFormat.grouped(row.rate)) | \(n(row.storedPerSecond)) | "
                    + "\(ms(row.p50Ms)) | \(ms(row.p99Ms)) | \(n(row.passes)) | "
                    + "\(f1(row.microsecondsPerMessage("gateway"))) | "
                    + "\(row.cores["postgres"].map { PythonFormat.fixed($0, 2) } ?? "n/a") | "
                    + "\(row.cores["machine"].map { PythonFormat.fixed($0, 2) } ?? "n/a") | "
                    + "\(row.passed ? "passed" : "**FAILED**") |")
        }
        let throughput = ratio(rows, kind: "throughput") { $0.storedPerSecond }
        let p99 = ratio(rows, kind: "latency") { $0.p99Ms }
        let gatewayCPU = ratio(rows, kind: "throughput") { $0.microsecondsPerMessage("gateway") }
        let controlThroughput = ratio(rows, kind: "throughput", control: true) { $0.storedPerSecond }
        let controlP99 = ratio(rows, kind: "latency", control: true) { $0.p99Ms }
        func met(_ value: Double?) -> String {
            guard let value else { return "n/a" }
            return abs(value - 1) < costTarget ? "met" : "**MISSED**"
        }
        lines += [
            "",
            "`least_busy` / `manual`, the two measured at the same time, median over the rounds: throughput "
                + "\(f3(throughput)) (\(met(throughput))), p99 \(f3(p99)) (\(met(p99))), gateway CPU per stored "
                + "message \(f3(gatewayCPU)); the target is within 5%. The control round (`manual` beside `manual`, "
                + "second / first) shows what the method gives two identical gateways on this machine: throughput "
                + "\(f3(controlThroughput)), p99 \(f3(controlP99)).",
        ]
        return lines
    }

    /// The median over the rounds of `least_busy`'s value over `manual`'s,
    /// each pair measured at the same time; for the control round, the
    /// second gateway's over the first's.
    static func ratio(
        _ rows: [CostRow], kind: String, control: Bool = false, _ value: (CostRow) -> Double?
    ) -> Double? {
        var ratios: [Double] = []
        let measured = rows.filter { $0.kind == kind && $0.control == control }
        for round in Set(measured.map(\.round)) {
            let pair = measured.filter { $0.round == round }
            let numerator = control ? pair.first { $0.side == 1 } : pair.first { $0.mode == "least_busy" }
            let denominator = control ? pair.first { $0.side == 0 } : pair.first { $0.mode == "manual" }
            guard let top = numerator.flatMap(value), let bottom = denominator.flatMap(value), bottom > 0 else {
                continue
            }
            ratios.append(top / bottom)
        }
        return median(ratios)
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    private static func verdict(_ row: RoutingRunRow) -> String {
        guard let passed = row.passed else { return "n/a" }
        return passed ? "passed, 0 violations" : "**FAILED** (\(n(row.violations)) violations)"
    }

    private static func cores(_ values: [String: Double], _ keys: [String]) -> String {
        keys.map { values[$0].map { PythonFormat.fixed($0, 2) } ?? "n/a" }.joined(separator: " | ")
    }

    private static func n(_ value: Double?) -> String {
        value.map { PythonFormat.fixed($0, 0, grouping: true) } ?? "n/a"
    }

    private static func ms(_ value: Double?) -> String { value.map { PythonFormat.fixed($0, 1) + " ms" } ?? "n/a" }
    private static func f1(_ value: Double?) -> String { value.map { PythonFormat.fixed($0, 1) } ?? "n/a" }
    private static func f3(_ value: Double?) -> String { value.map { PythonFormat.fixed($0, 3) } ?? "n/a" }
}
