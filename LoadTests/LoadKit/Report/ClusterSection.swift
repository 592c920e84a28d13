import SwitchboardJSON

/// docs/benchmarks.md, "Clusters": what NOTIFY costs the writer, and the
/// cross-node runs against one node, with the verdict on the 5-ms target
/// (`loadtest bench-cluster`).
enum ClusterSection {
    /// How the run was asked for, as the section tells it.
    struct Run: Sendable {
        var quick: Bool
        var seconds: Int
        var repeats: Int
        var rates: [Int]
    }

    static func render(
        _ results: ClusterResults, _ run: Run, heading: [String] = BenchmarksDoc.heading("Clusters")
    ) -> String {
        var lines = heading
        lines += writerLines(results, quick: run.quick)
        lines += crossNodeLines(results.runs, run)
        return lines.joined(separator: "\n") + "\n"
    }

    static func writerLines(_ results: ClusterResults, quick: Bool) -> [String] {
        var lines = [
            "",
            "`scripts/bench-cluster\(quick ? " --quick" : "")`. Nodes (one event loop each) on core 0, "
                + "the harness on core 1, PostgreSQL (durable) and nats-server unpinned.",
            "", "### What NOTIFY costs the writer", "",
            "| round | without NOTIFY (msg/s) | with NOTIFY (msg/s) | ratio | notifications |",
            "| --- | ---: | ---: | ---: | ---: |",
        ]
        var ratios: [Double] = []
        for (index, (plain, notify)) in zip(results.plain, results.notify).enumerated() {
            let without = plain["per_s"]?.doubleValue ?? .nan
            let with = notify["per_s"]?.doubleValue ?? .nan
            ratios.append(with / without)
            lines.append(
                "| \(index + 1) | \(PythonFormat.fixed(without, 0, grouping: true)) | "
                    + "\(PythonFormat.fixed(with, 0, grouping: true)) | \(PythonFormat.fixed(with / without, 3)) | "
                    + "\(PythonFormat.fixed(notify["notifications"]?.doubleValue ?? 0, 0, grouping: true)) |")
        }
        lines += [
            "",
            "With NOTIFY the writer stores \(PythonFormat.fixed(ratios.min() ?? .nan, 3))-"
                + "\(PythonFormat.fixed(ratios.max() ?? .nan, 3)) times as many messages per second as without "
                + "(median \(PythonFormat.fixed(median(ratios), 3))); the target is at least 0.95.",
            "",
        ]
        guard !results.notifyCPU.isEmpty else { return lines }
        lines += [
            "Those runs differ from one another by more than the effect sought, so the cost is also measured "
                + "where the noise between runs cannot enter: within each run with NOTIFY, the CPU-seconds of the "
                + "bus backends (this node's NOTIFY statements and a second node's LISTEN taking them) against "
                + "those of the writer backends storing the messages. On a database whose CPU limits the writer, "
                + "that share is what notifying takes from its throughput.",
            "",
            "| writer-bench run | writer backends (CPU-s) | bus backends (CPU-s) | bus / writer |",
            "| --- | ---: | ---: | ---: |",
        ]
        for run in results.notifyCPU {
            lines.append(
                "| \(run.mode) | \(PythonFormat.fixed(run.writerSeconds, 2)) | "
                    + "\(PythonFormat.fixed(run.busSeconds, 2)) | \(run.share.map { "\($0)" } ?? "n/a")% |")
        }
        var modes: [String] = []
        for run in results.notifyCPU where !modes.contains(run.mode) { modes.append(run.mode) }
        for mode in modes {
            let shares = results.notifyCPU.filter { $0.mode == mode }.compactMap(\.share)
            guard let low = shares.min(), let high = shares.max() else { continue }
            let note =
                mode == "full throughput"
                ? " (\(high <= 5 ? "met" : "**MISSED**"): the target is at most 5% of its throughput)"
                : " (small batches: one notification per batch, each its own transaction)"
            lines += ["", "\(mode): notifying costs \(low)-\(high)% of the writer's database CPU" + note + "."]
        }
        return lines + [""]
    }

    /// A group of runs: one bus, rate and configuration, over the repeats.
    struct Group {
        var bus: String
        var rate, nodes, writers, depth: Int
        var rows: [ClusterRun]

        func matches(_ run: ClusterRun) -> Bool {
            bus == run.bus && rate == run.rate && nodes == run.nodes && writers == run.writers && depth == run.depth
        }

        var setting: String { "\(nodes) x \(writers)" + (depth != 2 ? ", d\(depth)" : "") }
        var medianP99: Double { median(rows.compactMap(\.p99Ms)) }
    }

    static func groups(_ runs: [ClusterRun]) -> [Group] {
        var groups: [Group] = []
        for run in runs {
            if let index = groups.firstIndex(where: { $0.matches(run) }) {
                groups[index].rows.append(run)
            } else {
                groups.append(
                    Group(
                        bus: run.bus, rate: run.rate, nodes: run.nodes, writers: run.writers, depth: run.depth,
                        rows: [run]))
            }
        }
        return groups
    }

    static func crossNodeLines(_ runs: [ClusterRun], _ run: Run) -> [String] {
        var lines = [
            "### Cross-node delivery", "",
            "`loadtest conversations` for \(run.seconds) s at each rate, 500 sessions of a visitor and two "
                + "operators, everyone sending. Two nodes: each session's visitor on one node, its operators on the "
                + "other, so every delivery between the visitor and the operators crosses nodes, and both nodes "
                + "write every session.",
            "",
            "Four configurations, each started for its run alone: one node with the default two writer "
                + "connections; two nodes with the default two each (four concurrent writers in all); two "
                + "nodes with one each, which gives the database the same two writers as the one node; and the "
                + "same at `writer.pipeline_depth = 1` (*d1*; the default is 2), as docs/cluster.md recommends "
                + "for clusters. "
                + "Each ran \(run.repeats == 1 ? "once" : "\(run.repeats) times") per bus and rate, in rotating order, "
                + "each run on a vacuumed and "
                + "checkpointed database. *Cores* are the medians of half-second samples during the run: the "
                + "machine's, PostgreSQL's and the gateway processes'.",
            "",
            "The acknowledgement is the sender's own node's commit; what a delivery takes beyond it is "
                + "the fan-out, and with two nodes the bus: the last column.",
            "",
            "| bus | msg/s | nodes x writers | checks | deliveries/s | send-to-delivery p50 (ms) | p99 (ms) | "
                + "send-to-ack p99 (ms) | delivery p99 - ack p99 (ms) | cores: machine / PostgreSQL / gateways |",
            "| --- | ---: | --- | --- | ---: | --- | --- | --- | --- | --- |",
        ]
        func spread(_ values: [Double?]) -> String {
            BenchFormat.spread(values, decimals: 1, grouping: false, empty: "-", byText: true)
        }
        let all = groups(runs)
        for group in all {
            let rows = group.rows
            let deliveries = rows.map { $0.deliveriesPerSecond ?? 0 }.reduce(0, +) / Double(rows.count)
            let beyond: [Double?] = rows.map { row in row.ackP99Ms.flatMap { ack in row.p99Ms.map { $0 - ack } } }
            let cores = ["machine", "postgres", "gateways"].map { key in spread(rows.map { $0.cores[key] }) }
            lines.append(
                "| \(group.bus) | \(PythonFormat.grouped(group.rate)) | \(group.setting) | "
                    + "\(rows.allSatisfy(\.passed) ? "pass" : "FAIL") | "
                    + "\(PythonFormat.fixed(deliveries, 0, grouping: true)) | \(spread(rows.map(\.p50Ms))) | "
                    + "\(spread(rows.map(\.p99Ms))) | \(spread(rows.map(\.ackP99Ms))) | \(spread(beyond)) | "
                    + cores.joined(separator: " / ") + " |")
        }
        let target = run.rates.contains(10000) ? 10000 : run.rates.max() ?? 0
        lines += [
            "",
            "The target: cross-node p99 within 5 ms of the one-node p99 at 10,000 msg/s, judged on the "
                + "medians of the repeats (single runs here move by more than 5 ms on their own)"
                + (target == 10000
                    ? ":"
                    : ". This run had no 10,000 msg/s step; at \(PythonFormat.grouped(target)) msg/s, for reference:"),
            "",
        ]
        var buses: [String] = []
        for group in all where !buses.contains(group.bus) { buses.append(group.bus) }
        for bus in buses {
            guard
                let one = all.first(where: {
                    $0.bus == bus && $0.rate == target && $0.nodes == 1 && $0.writers == 2 && $0.depth == 2
                })
            else { continue }
            for group in all where group.bus == bus && group.rate == target && group.nodes != 1 {
                let difference = group.medianP99 - one.medianP99
                let within = difference <= 5
                let verdict =
                    target == 10000 ? (within ? "met" : "**missed**") : (within ? "within 5 ms" : "more than 5 ms")
                lines.append(
                    "- \(bus), \(group.nodes) nodes x \(group.writers) writer\(group.writers > 1 ? "s" : "")"
                        + (group.depth != 2 ? " at pipeline depth \(group.depth)" : "") + ": median p99 "
                        + "\(PythonFormat.fixed(group.medianP99, 1)) ms against \(PythonFormat.fixed(one.medianP99, 1)) ms "
                        + "on one node (\(BenchFormat.signed(difference, 1)) ms): \(verdict).")
            }
        }
        return lines + [""]
    }

    /// The median, the mean of the middle two for an even count (NaN for none).
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
