import SwitchboardJSON

/// The chat section of docs/benchmarks.md from one scripts/bench run: the
/// harness's SCENARIO.json reports and the run's run.json (its command, the
/// PostgreSQL settings, each scenario's options, exit status and wall time).
/// Any figure or latency a report lacks renders as "n/a".
public enum ChatSection {
    public static let name = "chat"
    public static let scenarios = ["idle", "fanout", "storm", "ramp", "conversations"]
    static let na = "n/a"

    static let references =
        "References (published figures for other servers, not measured here): pure pub/sub, 50 rooms x 20"
        + " subscribers, uWebSockets about 800,000 deliveries/s and Node's `ws` about 76,000/s; these relay messages"
        + " without authentication, storage, ordering or acknowledgements, which every delivery here includes."
        + " Memory per idle connection: uWebSockets 0.5 KiB (unauthenticated), Centrifugo 11-27 KiB."

    /// What one run left: run.json's members and each scenario's parsed report.
    public struct Run {
        public var run: JSONObject
        public var reports: [String: JSONValue]
        /// The report directory as the section names it (relative to the repository when inside it).
        public var directory: String

        public init(run: JSONObject, reports: [String: JSONValue], directory: String) {
            self.run = run
            self.reports = reports
            self.directory = directory
        }

        func text(_ key: String) -> String? { run[key].map { PythonFormat.str($0) } }
    }

    /// The section's text. `started` and `machine` stand in for the clock and this
    /// machine when run.json has no start time.
    public static func render(_ input: Run, now: String = BenchmarksDoc.utcMinute(), machine: String) -> String {
        let run = input.run
        let reports = input.reports
        let started = PythonFormat.truthy(run["started"]) ? input.text("started")! : now
        let command = input.text("command") ?? "scripts/bench"
        let ran = (input.text("scenarios") ?? scenarios.filter { reports[$0] != nil }.joined(separator: " "))
            .split(whereSeparator: \.isWhitespace).map(String.init)
        func setting(_ key: String) -> String { input.text(key) ?? "?" }
        let pg =
            "PostgreSQL \(setting("pg_version")), fresh for the run, with durable settings"
            + " (fsync=\(setting("pg_fsync")), synchronous_commit=\(setting("pg_synchronous_commit")),"
            + " full_page_writes=\(setting("pg_full_page_writes")),"
            + " shared_buffers=\(setting("pg_shared_buffers")))"
        var lines = ["## Chat: end-to-end load (scripts/bench)", ""]
        if PythonFormat.truthy(run["aborted"]) {
            lines += [
                "> Aborted run: \(input.text("aborted")!). Figures below are from the scenarios that finished.", "",
            ]
        }
        if run["quick"] == .string("1") {
            lines += [
                "> Quick run (`--quick`): smoke-test sizes, not a measurement. The targets are stated for the"
                    + " standard sizes.", "",
            ]
        }
        let priority: String
        if (input.text("harness_nice") ?? "none") == "none" {
            priority =
                " The harness runs at the default priority, so time it waits for the CPU behind PostgreSQL"
                + " counts as latency."
        } else {
            priority =
                " The harness runs at `\(input.text("harness_nice")!)`: latency runs from each message's scheduled"
                + " send time, and PostgreSQL yields core 1 to it rather than its waits counting as gateway latency."
        }
        lines += [
            "Run \(started) on \(machine).",
            "Command: `\(command)`. The release gateway is pinned to core 0 (`taskset -c 0`), the `loadtest` harness"
                + " (LoadTests/LoadTest) to core 1 (`taskset -c 1`); \(pg) is not pinned and shares both cores with"
                + " them." + priority
                + " The harness opens real WebSocket connections with JWTs (visitors and operator consoles), checks"
                + " every delivery for gaps, duplicates and reordering, and afterwards checks acked messages against"
                + " the database.",
            "",
            configuration,
            "",
            "### Targets",
            "",
        ]
        lines += targetsTable(input)
        lines += ["", references, ""]
        for scenario in scenarios where ran.contains(scenario) || reports[scenario] != nil {
            lines += ChatScenarioSection.render(scenario, report: reports[scenario], run: input)
        }
        let walls = scenarios.compactMap { scenario -> String? in
            PythonFormat.truthy(run["seconds.\(scenario)"])
                ? "\(scenario) \(input.text("seconds.\(scenario)")!) s" : nil
        }
        if !walls.isEmpty {
            let total = scenarios.compactMap { scenario -> Int? in
                guard let text = input.text("seconds.\(scenario)"), !text.isEmpty,
                    text.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) })
                else { return nil }
                return Int(text)
            }.reduce(0, +)
            lines.append(
                "Wall time per scenario (set-up and drain included): \(walls.joined(separator: ", ")); \(total) s in all."
            )
        }
        lines.append(
            "Reports with charts (HTML) and the raw JSON were written to `\(input.directory)/` (not committed).")
        return lines.joined(separator: "\n") + "\n"
    }

    static let configuration =
        "Gateway configuration, against the defaults in config/switchboard.toml: `server.threads = 1` (one event"
        + " loop for its one core); `chat.rate_per_second = 100000` and `chat.rate_burst = 100000` (defaults 20 and"
        + " 40 frames/s per connection): the harness measures capacity, and its senders send far more than a person"
        + " does, so the default limit would refuse most of their frames; `websocket.deflate.enabled = false` (the"
        + " harness does not offer it); `log.level = \"warning\"`; `server.shutdown_grace_s = 2`. Everything else is"
        + " the default (`chat.max_joined_sessions` 100, 2 writer connections, batches of up to 1024 messages, each"
        + " sent when the previous one commits, 4 reader threads). One gateway process serves the scenarios in the"
        + " order below, so sessions and rows accumulate: idle runs first, on the fresh process (memory freed by"
        + " earlier scenarios would be reused without growing the RSS); ramp and conversations come last, because"
        + " they drive the gateway into overload on purpose. Between scenarios the script runs VACUUM (ANALYZE) on"
        + " the chat tables and waits 2 s, so autovacuum does not start inside a measurement; PostgreSQL runs with"
        + " max_wal_size=4GB so that no checkpoint does either."

    /// Every scenario's targets as its report states them (the harness owns the goals:
    /// Scenarios/ScenarioTargets.swift); this only renders.
    static func targetsTable(_ input: Run) -> [String] {
        var lines = ["| scenario | measure | target | measured | result |", "| --- | --- | --- | ---: | --- |"]
        for scenario in scenarios {
            guard let report = input.reports[scenario] else {
                let ran = input.run["exit.\(scenario)"] != nil
                lines.append("| \(scenario) | | | \(na) | \(ran ? "no report" : "not run") |")
                continue
            }
            for target in ChatScenarioSection.list(report["targets"]) {
                let met = target["met"]
                let result =
                    met == nil || met == .null ? "report only" : PythonFormat.truthy(met) ? "met" : "**MISSED**"
                lines.append(
                    "| \(scenario) | \(PythonFormat.str(target["label"], or: na)) | "
                        + "\(PythonFormat.str(target["target"], or: na)) | \(PythonFormat.str(target["measured"], or: na))"
                        + " | \(result) |")
            }
        }
        return lines
    }
}
