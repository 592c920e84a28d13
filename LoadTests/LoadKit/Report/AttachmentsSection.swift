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
            "| file | uploads/s | MB/s | upload p50 / p99 | gateway CPU-s per MB | gateway RSS idle / peak | "
                + "refused 503 / 429 | other |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for run in results.throughput {
            let counts = run.counts
            lines.append(
                "| \(size(run.size)) | \(fixed(counts.uploadsPerSecond)) | \(fixed(counts.megabytesPerSecond)) | "
                    + "\(fixed(counts.p50Ms)) / \(fixed(counts.p99Ms)) ms | \(fixed(run.cpuPerMegabyte, 4)) | "
                    + "\(run.idleRSSKiB >> 10) / \(run.peakRSSKiB >> 10) MiB | \(counts.refused503) / "
                    + "\(counts.refused429) | \(counts.other + counts.failed) |")
        }
        lines += [
            "",
            "On a gateway with the write pace at \(results.pace == 0 ? "none" : "\(results.pace >> 20) MiB/s") "
                + "(`attachments.max_write_bytes_per_second`; the default is 8 MiB/s), "
                + "the `fanout` scenario (\(shape.sessions) sessions x \(shape.subscribers) subscribers at "
                + "\(PythonFormat.grouped(shape.rate)) msg/s, \(results.seconds) s) alone, then beside each upload "
                + "load (the uploaders on the harness's core at normal priority, the harness at nice -5, so the "
                + "uploaders' own CPU also delays the harness: *inside* is the gateway's own p99 from a frame read "
                + "to its ack written, `switchboard_send_stage_seconds{stage=\"total\"}` between scrapes, which the "
                + "harness's core does not move). Target: the p99 beside uploads within 20% of alone.",
            "",
            "| repeat | p99 alone | p99 beside 100 KiB uploads | change | p99 beside 5 MiB uploads | change | "
                + "inside p99 alone / 100 KiB / 5 MiB | uploads/s beside (100 KiB / 5 MiB) | checks |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
        ]
        var changes: [Double] = []
        for (index, pair) in results.repeats.enumerated() {
            var cells = ["\(index + 1)", "\(fixed(pair.alone.p99Ms, 2)) ms"]
            var rates: [String] = []
            let inside = ([pair.alone] + pair.beside).map { fixed($0.insideP99Ms, 2) }.joined(separator: " / ")
            for run in pair.beside {
                let change = change(run.p99Ms, over: pair.alone.p99Ms)
                changes.append(change)
                cells += ["\(fixed(run.p99Ms, 2)) ms", BenchFormat.percent(change)]
                rates.append(fixed(run.uploads?.uploadsPerSecond))
            }
            let passed = ([pair.alone] + pair.beside).allSatisfy { $0.passed == true }
            cells += [inside + " ms", rates.joined(separator: " / "), passed ? "passed" : "**FAILED**"]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        let met = !changes.isEmpty && changes.allSatisfy { $0.magnitude < targetChange }
        lines += [
            "",
            met
                ? "**target met**: the fanout p99 beside uploads is within 20% of alone in every repeat."
                : "**target missed**: a repeat's p99 beside uploads differs from alone by 20% or more.",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `value / base - 1`, NaN without both (or with a base of 0).
    static func change(_ value: Double?, over base: Double?) -> Double {
        guard let value, let base, base != 0 else { return .nan }
        return value / base - 1
    }
}
