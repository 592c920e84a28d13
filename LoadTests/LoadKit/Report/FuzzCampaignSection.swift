/// The "Fuzzing campaign" section of docs/conformance.md (scripts/fuzz-campaign):
/// per target, what its libFuzzer log says it did and what its kept corpus
/// holds after the merge.
public enum FuzzCampaignSection {
    public static let name = "fuzz-campaign"

    /// What each target parses, for the table.
    static let parses = [
        "FuzzHTTP": "HTTP/1.1 request parser",
        "FuzzFrames": "WebSocket frame parser and handshake",
        "FuzzInflate": "permessage-deflate inflater",
        "FuzzJSON": "JSON parser",
        "FuzzChatFrame": "chat protocol frame decoder",
        "FuzzToken": "JWT verifier",
        "FuzzProxy": "PROXY protocol v1/v2 and X-Forwarded-For",
        "FuzzBus": "cluster bus envelope decoder",
        "FuzzNATS": "NATS protocol parser",
    ]

    /// One target's row: from its log (Fuzz/.out/TARGET.log) and its kept corpus.
    public struct Target {
        public var name: String
        var cpuMinutes: Double
        var runs: Int
        var perSecond: Int
        var newUnits: Int
        var rssMB: Int
        var cov: String
        var ft: String
        var keptFiles: Int
        var keptBytes: Int
        var finding: Bool

        public init(name: String, log: String, keptFiles: Int, keptBytes: Int) {
            self.name = name
            func first(_ pattern: String, in text: String) -> String? {
                guard let regex = try? Regex(pattern).anchorsMatchLineEndings(),
                    let match = text.firstMatch(of: regex), let group = match.output[1].substring
                else { return nil }
                return String(group)
            }
            func count(_ pattern: String) -> Int { first(pattern, in: log).flatMap { Int($0) } ?? 0 }
            cpuMinutes = Double(count(#"^cpu_seconds: (\d+)"#)) / 60
            runs = count(#"^stat::number_of_executed_units:\s+(\d+)"#)
            perSecond = count(#"^stat::average_exec_per_sec:\s+(\d+)"#)
            newUnits = count(#"^stat::new_units_added:\s+(\d+)"#)
            rssMB = count(#"^stat::peak_rss_mb:\s+(\d+)"#)
            // A run stopped at its CPU budget (SIGINT) prints no DONE line: its last status line counts.
            let status = try? Regex(#"^#\d+\s+\w+\s+cov:"#)
            let last =
                log.split(separator: "\n", omittingEmptySubsequences: false).last { line in
                    status.map { line.prefixMatch(of: $0) != nil } ?? false
                }.map(String.init) ?? ""
            cov = first(#"cov: (\d+)"#, in: last) ?? "?"
            ft = first(#"ft: (\d+)"#, in: last) ?? "?"
            self.keptFiles = keptFiles
            self.keptBytes = keptBytes
            let findingPattern = try? Regex(#"^(==\d+==ERROR|SUMMARY:|.*Test unit written)"#).anchorsMatchLineEndings()
            finding = findingPattern.map { log.firstMatch(of: $0) != nil } ?? false
        }
    }

    /// The campaign's settings as scripts/fuzz-campaign states them.
    public struct Campaign {
        public var command: String
        public var started: String
        public var minutes: Int
        public var cpuMinutes: Int
        public var parallel: Int
        public var cores: Int

        public init(command: String, started: String, minutes: Int, cpuMinutes: Int, parallel: Int, cores: Int) {
            self.command = command
            self.started = started
            self.minutes = minutes
            self.cpuMinutes = cpuMinutes
            self.parallel = parallel
            self.cores = cores
        }
    }

    /// The section's text between its markers.
    public static func render(_ campaign: Campaign, targets: [Target]) -> String {
        let budget =
            campaign.cpuMinutes > 0
            ? "each target ran until it had used \(campaign.cpuMinutes) minutes of CPU time (*CPU* below: what each used)"
            : "each target ran \(campaign.minutes) minutes of wall-clock time, sharing the cores (*CPU* below: the CPU"
                + " time each got)"
        var lines = [
            "## Fuzzing campaign (scripts/fuzz-campaign)", "",
            "Command: `\(campaign.command)` (started \(campaign.started)) on \(campaign.cores) cores,"
                + " \(campaign.parallel) targets at once: \(budget). libFuzzer with AddressSanitizer (debug build),"
                + " starting from the kept corpus, the seeds and the working corpus. *cov*/*ft*: the code edges and"
                + " features reached at the end. *Kept* is the corpus committed under `Fuzz/corpus/` after merging:"
                + " the smallest set of inputs that reaches the same coverage, the start of every later run.",
            "",
            "| target | parses | CPU | runs | runs/s | new inputs | cov / ft | kept corpus | peak RSS | result |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
        ]
        for row in targets {
            let grouped = PythonFormat.grouped
            lines.append(
                "| \(row.name) | \(parses[row.name] ?? "") | \(PythonFormat.fixed(row.cpuMinutes, 1)) min"
                    + " | \(grouped(row.runs)) | \(grouped(row.perSecond)) | \(grouped(row.newUnits)) | \(row.cov) / \(row.ft)"
                    + " | \(grouped(row.keptFiles)) inputs, \(PythonFormat.fixed(Double(row.keptBytes) / 1024, 0, grouping: true)) KiB"
                    + " | \(row.rssMB) MB | \(row.finding ? "**finding: see Fuzz/.out/**" : "no finding") |")
        }
        let total = targets.reduce(0) { $0 + $1.runs }
        let verdict = targets.contains { $0.finding } ? "**a target found something**" : "no target found anything"
        lines += ["", "\(PythonFormat.grouped(total)) runs in all; \(verdict)."]
        return lines.joined(separator: "\n") + "\n"
    }
}
