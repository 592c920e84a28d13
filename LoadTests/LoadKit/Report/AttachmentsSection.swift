/// docs/benchmarks.md, "Attachments": what 50 concurrent uploaders reach, what
/// they cost the gateway, and whether the chat path feels them
/// (`loadtest bench-attachments`).
enum AttachmentsSection {
    static let targetChange = 0.20
    static let title = "Attachments: uploads beside the chat load (scripts/bench-attachments)"

    static func render(_ results: AttachmentsResults, heading: [String] = BenchmarksDoc.heading(title)) -> String {
        func fixed(_ value: Double?, _ decimals: Int = 1) -> String { PythonFormat.fixed(value ?? .nan, decimals) }
        func size(_ bytes: Int) -> String { bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : "\(bytes >> 10) KiB" }
        let shape = results.shape
        var lines = heading + [""]
        lines += [
            "Command: `\(results.command)` (started \(results.started)). A gateway (one event loop) on core 0, "
                + "PostgreSQL storage, the default in-flight budget (\(results.inFlightBudget >> 20) MiB), the "
                + "per-session quota and upload rate raised out of the way; for this table without the write pace "
                + "(`attachments.max_write_bytes_per_second = 0`: the capacity). \(results.concurrency) uploaders "
                + "(`loadtest uploader`, core 1) each upload one PDF after another, each on a new connection, for "
                + "\(results.seconds) s.",
            "",
            "| file | uploads/s | MB/s | upload p50 / p99 | gateway CPU-s per MB | CPU µs per upload: gateway / "
                + "PostgreSQL / uploader | gateway RSS idle / peak | refused 503 / 429 | other |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for run in results.throughput {
            let counts = run.counts
            lines.append(
                "| \(size(run.size)) | \(fixed(counts.uploadsPerSecond)) | \(fixed(counts.megabytesPerSecond)) | "
                    + "\(fixed(counts.p50Ms)) / \(fixed(counts.p99Ms)) ms | \(fixed(run.cpuPerMegabyte, 4)) | "
                    + ["gateway", "postgres", "uploader"].map { fixed(run.microsecondsPerUpload($0), 0) }
                    .joined(separator: " / ") + " | "
                    + "\(run.idleRSSKiB >> 10) / \(run.peakRSSKiB >> 10) MiB | \(counts.refused503) / "
                    + "\(counts.refused429) | \(counts.other + counts.failed) |")
        }
        let window = PythonFormat.fixed(results.windowSeconds, 0)
        let settle = PythonFormat.fixed(results.settleSeconds, 1)
        lines += [
            "",
            "On a gateway with the write pace at \(results.pace == 0 ? "none" : "\(results.pace >> 20) MiB/s") "
                + "(`attachments.max_write_bytes_per_second`; the default is "
                + "\(AttachmentsDriver.defaultPace >> 20) MiB/s), the `fanout` scenario "
                + "(\(shape.sessions) sessions x \(shape.subscribers) subscribers at "
                + "\(PythonFormat.grouped(shape.rate)) msg/s) for \(results.fanoutSeconds) s, its send-to-delivery "
                + "latency split by \(window)-s windows of the wall clock taken in turn, A B B A A B B A "
                + "(`loadtest --alternate \(window) --alternate-settle \(settle)`: the first \(settle) s of each "
                + "window count for neither side, while the gateway stores what uploads cut as an A window began "
                + "had already sent it). Beside it the uploaders work in the B windows only (`loadtest uploader "
                + "--alternate \(window)`, resetting every upload still going as an A window begins); in the "
                + "*A/A* run nothing is beside it, so its two sides differ only by the method's own noise. Both "
                + "sides of a run see the same database, checkpoints and machine, seconds apart; two separate "
                + "runs of the same load differ by more than the target on this machine. 5 MiB files take longer "
                + "than a window at the pace shared by \(results.concurrency) uploaders, so their B windows carry "
                + "the chunks' writes and few commits. The kernel's writeback: \(results.writeback.description) "
                + "(scripts/bench-attachments, run as root, sets what docs/operations.md recommends for a "
                + "database host: with the defaults, PostgreSQL's table growth reaches the disk in bursts every "
                + "30 s that hold a few commits for 100-500 ms, landing on either side by chance). "
                + "Target: the B windows' p99 within 20% of the A windows'.",
            "",
            "| repeat | A/A: A / B windows p99 | A/A difference | 100 KiB: without / with uploads p99 | change | "
                + "5 MiB: without / with uploads p99 | change | uploads stored in B windows (100 KiB / 5 MiB) | "
                + "cut as A began | checks |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
        ]
        var changes: [Double] = []
        var controls: [Double] = []
        for (index, pair) in results.repeats.enumerated() {
            controls.append(pair.control.change)
            var cells = [
                "\(index + 1)", "\(fixed(pair.control.aP99Ms, 2)) / \(fixed(pair.control.bP99Ms, 2)) ms",
                BenchFormat.percent(pair.control.change),
            ]
            for run in pair.beside {
                changes.append(run.change)
                cells += ["\(fixed(run.aP99Ms, 2)) / \(fixed(run.bP99Ms, 2)) ms", BenchFormat.percent(run.change)]
            }
            let uploads = pair.beside.map { run in
                run.uploads.map { "\($0.created) (\(PythonFormat.fixed($0.megabytesPerSecond, 1)) MB/s)" } ?? "None"
            }
            let cut = pair.beside.map { "\($0.uploads?.cut ?? 0)" }
            let passed = ([pair.control] + pair.beside).allSatisfy { $0.passed == true }
            cells += [
                uploads.joined(separator: " / "), cut.joined(separator: " / "), passed ? "passed" : "**FAILED**",
            ]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        func range(_ values: [Double]) -> String {
            guard let low = values.min(), let high = values.max() else { return "none" }
            return "\(BenchFormat.percent(low)) to \(BenchFormat.percent(high))"
        }
        let resolves = !controls.isEmpty && controls.allSatisfy { $0.magnitude < targetChange }
        let met = resolves && !changes.isEmpty && changes.allSatisfy { $0.magnitude < targetChange }
        let verdict =
            met
            ? "**target met**: under 20% in every repeat, with the A/A runs under 20% too"
            : resolves
                ? "**target missed**: 20% or more in a repeat whose method resolves 20%"
                : "**not shown**: an A/A run differed by 20% or more, so the method cannot resolve 20% in that run"
        lines += [
            "",
            "Within one run uploads in the B windows changed the p99 by \(range(changes)); the A/A runs' two sides "
                + "differed by \(range(controls)) (\(verdict)).",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `value / base - 1`, NaN without both (or with a base of 0).
    static func change(_ value: Double?, over base: Double?) -> Double {
        guard let value, let base, base != 0 else { return .nan }
        return value / base - 1
    }
}
