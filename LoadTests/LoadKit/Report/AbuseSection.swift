/// docs/benchmarks.md, "Abuse": the fanout scenario's latency with and without
/// one abusive address beside it, by separate runs and within one run, and
/// the verdict read against the method's own noise (`loadtest bench-abuse`).
enum AbuseSection {
    static let targetChange = 0.20
    /// The interleaved runs' windows: 4.75 s of each counted, the first 250 ms left to settle.
    static let windowSeconds = 5
    static let title = "Abuse: one address flooding beside the fanout load (scripts/bench-abuse)"

    enum Verdict: Equatable, Sendable {
        case notShown, met, missed

        var text: String {
            switch self {
            case .notShown: "**not shown**: the A/A runs differ by as much as the 20% to be resolved"
            case .met: "**target met**: under 20% in every repeat, with the A/A runs under 20% too"
            case .missed: "**target missed**: 20% or more in a repeat whose method resolves 20%"
            }
        }
    }

    /// A change is read against the method's own noise: where the A/A halves
    /// differ by 20% or more, a change under 20% shows nothing, and neither
    /// does one above it.
    static func verdict(abused: [Double], controls: [Double]) -> Verdict {
        if controls.contains(where: { $0.magnitude >= targetChange }) { return .notShown }
        return abused.allSatisfy { $0.magnitude < targetChange } ? .met : .missed
    }

    static func render(_ results: AbuseResults, heading: [String] = BenchmarksDoc.heading(title)) -> String {
        let shape = results.shape
        let window = windowSeconds
        func ms(_ value: Double?) -> String { PythonFormat.fixed(value ?? .nan, 1) }
        func count(_ value: Double?) -> String { PythonFormat.fixed(value ?? .nan, 0, grouping: true) }
        var lines = heading + [""]
        lines += [
            "Command: `\(results.command)` (started \(results.started)). One gateway (one event loop) on core 0 "
                + "with the default per-address limits (256 connections, 50/s after a burst of 100); only 127.0.0.1, "
                + "the load harness, is exempt. Each repeat runs the `fanout` scenario "
                + "(\(shape.sessions) sessions x \(shape.subscribers) subscribers at \(PythonFormat.grouped(shape.rate)) "
                + "msg/s, \(results.seconds) s) alone, then again while 127.0.0.2 opens "
                + "\(PythonFormat.grouped(results.abuseRate)) connections/s, each a slow-loris sending one "
                + "header byte every 5 s (`loadtest abuser`, on the harness's core in the idle scheduling class, "
                + "so that the harness, at nice -5, preempts it whenever it wakes: an attacker's own CPU is not the "
                + "gateway's; *abuser attempts* shows the rate it reached). "
                + "Target: the p99 changes by less than 20%.",
            "",
            "The abuser's kernel work (its connects, the answers it receives) runs on the harness's core whatever "
                + "its scheduling class, so the harness's send-to-delivery figure also moves with the harness's own "
                + "delays. *Inside* is the gateway's own p99 from a frame read to its ack written "
                + "(`switchboard_send_stage_seconds{stage=\"total\"}`, between scrapes before and after each run), "
                + "which the harness's core does not move.",
            "",
            "| repeat | p99 alone | p99 with abuser | change | inside p99 alone / with | inside change | "
                + "p50 alone / with | deliveries/s alone / with | abuser attempts | refused 429 (conns / rate) | "
                + "held at most | checks |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
        ]
        var changes: [Double] = []
        var inside: [Double] = []
        for (index, pair) in results.pairs.enumerated() {
            let (alone, abused) = pair
            let attack = abused.attack ?? AbuserCounts()
            let change = AbuseRun.change(abused.p99Ms, over: alone.p99Ms)
            let insideChange = AbuseRun.change(abused.insideP99Ms, over: alone.insideP99Ms)
            changes.append(change)
            inside.append(insideChange)
            lines.append(
                "| \(index + 1) | \(ms(alone.p99Ms)) ms | \(ms(abused.p99Ms)) ms | \(BenchFormat.percent(change)) | "
                    + "\(ms(alone.insideP99Ms)) / \(ms(abused.insideP99Ms)) ms | \(BenchFormat.percent(insideChange)) | "
                    + "\(ms(alone.p50Ms)) / \(ms(abused.p50Ms)) ms | "
                    + "\(count(alone.deliveriesPerSecond)) / \(count(abused.deliveriesPerSecond)) | "
                    + "\(PythonFormat.grouped(attack.attempts)) | "
                    + "\(PythonFormat.grouped(abused.refused["per_ip_connections"] ?? 0)) / "
                    + "\(PythonFormat.grouped(abused.refused["per_ip_rate"] ?? 0)) | "
                    + "\(PythonFormat.grouped(attack.maxHeld)) | "
                    + (alone.passed == true && abused.passed == true ? "passed" : "**FAILED**") + " |")
        }
        lines += [
            "",
            "Separate runs: the p99 changed by \(range(changes)) over the repeats, inside the gateway by "
                + "\(range(inside)). Two runs alone differ by as much "
                + "(compare the *alone* column across repeats), so this comparison cannot resolve 20%.",
            "",
            "Within one run: the same scenario for \(results.interleaveSeconds) s with its sends split by "
                + "\(window)-s windows of the wall clock taken in turn, A B B A A B B A (`loadtest --alternate \(window)`; "
                + "the first 250 ms of each window count for neither side, the abuser's burst as its windows open counts; "
                + "pairs of pairs, so that a drift over the run or anything with the period of two windows weighs on "
                + "both sides alike). In the *abused* run the abuser attacks only in the B windows "
                + "(`loadtest abuser --alternate \(window)`, closing what it holds as an A window begins); the *A/A* run "
                + "has no abuser, so its two sides differ only by the method's own noise. Both sides of a run see the "
                + "same database, the same checkpoints and the same machine, seconds apart.",
            "",
            "| repeat | A/A: A / B windows p99 | A/A difference | abused: without / with abuser p99 | change | "
                + "p50 without / with | deliveries counted (without / with) | abuser attempts | checks |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
        ]
        for (index, pair) in results.interleaved.enumerated() {
            let (control, abused) = pair
            lines.append(
                "| \(index + 1) | \(ms(control.aP99Ms)) / \(ms(control.bP99Ms)) ms | "
                    + "\(BenchFormat.percent(control.change)) | "
                    + "\(ms(abused.aP99Ms)) / \(ms(abused.bP99Ms)) ms | \(BenchFormat.percent(abused.change)) | "
                    + "\(ms(abused.aP50Ms)) / \(ms(abused.bP50Ms)) ms | "
                    + "\(PythonFormat.grouped(abused.aCount ?? 0)) / \(PythonFormat.grouped(abused.bCount ?? 0)) | "
                    + "\(PythonFormat.grouped((abused.attack ?? AbuserCounts()).attempts)) | "
                    + (control.passed == true && abused.passed == true ? "passed" : "**FAILED**") + " |")
        }
        let within = results.interleaved.map(\.abused.change)
        let controls = results.interleaved.map(\.control.change)
        lines += [
            "",
            "Within one run the abuser changed the p99 by \(range(within)); the A/A runs' two sides differed by "
                + "\(range(controls)) (\(verdict(abused: within, controls: controls).text)).",
            "",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// "-3% to +12%": the lowest and highest change over the repeats.
    static func range(_ changes: [Double]) -> String {
        BenchFormat.percent(changes.min() ?? .nan) + " to " + BenchFormat.percent(changes.max() ?? .nan)
    }
}
