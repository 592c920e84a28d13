import SwitchboardJSON

/// The writer section of docs/benchmarks.md (scripts/bench-writer) from
/// writer-bench's JSON lines: naive against batched stored messages per second,
/// and the writer's commit latency at an offered rate.
public enum WriterSection {
    public static let name = "bench-writer"

    /// The section's text; `command` is the command line the run was started with.
    public static func render(output: String, command: String, heading: [String]? = nil) -> String {
        var kinds: [String: JSONObject] = [:]
        for object in BenchmarksDoc.jsonLines(output) { kinds[PythonFormat.str(object["kind"]!)] = object }
        func value(_ kind: String, _ key: String, _ fallback: String) -> String {
            PythonFormat.str(kinds[kind]?[key], or: fallback)
        }
        func settings(_ key: String) -> String { value("settings", key, "?") }
        func batched(_ key: String, _ fallback: String = "?") -> String { value("batched", key, fallback) }
        func naive(_ key: String) -> String { value("naive", key, "n/a") }
        func latency(_ key: String) -> String { value("latency", key, "?") }
        var lines = heading ?? BenchmarksDoc.heading("Writer: stored messages per second (scripts/bench-writer)")
        lines += [
            "Command: `\(command)`. A fresh private PostgreSQL \(settings("server_version")) with durable"
                + " settings (fsync=\(settings("fsync")), synchronous_commit=\(settings("synchronous_commit")),"
                + " full_page_writes=\(settings("full_page_writes")), wal_sync_method=\(settings("wal_sync_method")),"
                + " shared_buffers=\(settings("shared_buffers")), max_wal_size=\(settings("max_wal_size")));"
                + " `writer-bench` pinned to core 1, PostgreSQL not pinned (it shares both cores).",
            "Naive: one connection, one autocommitted `INSERT INTO chats` per message, seq counted client-side."
                + " Batched: `BatchWriter` (\(batched("connections", "1")) connections, sessions sharded over them;"
                + " batches of up to \(batched("batch")) messages, a smaller one sent when the connection's previous"
                + " batch has committed (after a \(batched("delay_ms")) ms wait for company), up to"
                + " \(batched("depth")) full batches in flight per connection), each batch one call of"
                + " `switchboard_append_messages` (row locks, dedup, gap-free seq) and one commit; submitted as fast"
                + " as the queues take them. Both ways build their messages before the clock starts. Both runs start"
                + " on the same database with new sessions, messages spread round-robin over them; the database is"
                + " vacuumed, analyzed and checkpointed before each run (naive, batched, then latency), so none pays"
                + " for the autovacuum the previous run's rows call for, and no checkpoint starts inside one.",
            "",
            "| way | messages | seconds | stored messages/s |",
            "| --- | ---: | ---: | ---: |",
            "| naive | \(naive("messages")) | \(naive("seconds")) | \(naive("per_s")) |",
            "| batched | \(batched("messages", "n/a")) | \(batched("seconds", "n/a")) | \(batched("per_s", "n/a")) |",
            "",
            "Batched over naive: **\(value("ratio", "batched_over_naive", "n/a"))x** (mean batch"
                + " \(batched("mean_batch")) messages, mean commit \(batched("mean_commit_ms")) ms from send to commit).",
            "",
            "Commit latency at \(latency("offered_per_s")) messages/s offered (open loop: message i is due at"
                + " start + i/rate, latency runs from when it was due to its result; \(latency("seconds")) s after a"
                + " 1 s warm-up, \(latency("measured")) messages, \(latency("refused")) refused):",
            "",
            "| p50 | p90 | p99 | p99.9 | max |",
            "| ---: | ---: | ---: | ---: | ---: |",
            "| \(latency("p50_ms")) ms | \(latency("p90_ms")) ms | \(latency("p99_ms")) ms"
                + " | \(latency("p999_ms")) ms | \(latency("max_ms")) ms |",
        ]
        lines += floorLines(output)
        lines += BenchmarksDoc.rawOutput(output)
        return lines.joined(separator: "\n") + "\n"
    }

    /// The writer against the bare `INSERT ... SELECT` floor, one row per
    /// batch size (`floor` lines); nothing when the run had none.
    private static func floorLines(_ output: String) -> [String] {
        let floors = BenchmarksDoc.jsonLines(output).filter { PythonFormat.str($0["kind"]!) == "floor" }
        guard !floors.isEmpty else { return [] }
        func span(_ value: JSONValue?) -> String {
            guard case .array(let bounds)? = value, bounds.count == 2 else { return "?" }
            let low = PythonFormat.str(bounds[0])
            let high = PythonFormat.str(bounds[1])
            return low == high ? low : "\(low)-\(high)"
        }
        var lines = [
            "",
            "Against the floor (`writer-bench --only floor`): the same rows stored by a bare `INSERT ... SELECT`"
                + " from arrays, with what the writer's function works out (ids, seq, workspace) made on the client,"
                + " one prepared statement and one commit per batch, on as many connections as the writer, each with"
                + " its own sessions; then by the writer with batches of that size. Pairs in alternating order on new"
                + " sessions, each side vacuumed and checkpointed first, autovacuum off for the tables both write;"
                + " CPU is every PostgreSQL process's, from /proc (ranges over the pairs):",
            "",
            "| batch | pairs | rows | floor CPU µs/row | writer CPU µs/row | writer / floor (CPU) | floor rows/s"
                + " | writer rows/s |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for floor in floors {
            func field(_ key: String) -> String { PythonFormat.str(floor[key], or: "?") }
            lines.append(
                "| \(field("batch")) | \(field("repeats")) | \(field("rows"))"
                    + " | \(span(floor["floor_pg_cpu_us_per_row"])) | \(span(floor["writer_pg_cpu_us_per_row"]))"
                    + " | \(span(floor["cpu_ratio"]))x | \(span(floor["floor_per_s"])) | \(span(floor["writer_per_s"])) |"
            )
        }
        return lines
    }
}
