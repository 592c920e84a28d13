import SwitchboardJSON
import SwitchboardSystem

/// What the bench drivers share (bench-latency, bench-abuse, bench-cluster):
/// the set-up their script made (binaries, a private PostgreSQL, a work and a
/// report directory), a fresh JWT secret, the database migrated, and the
/// harness run as a child on core 1.
struct BenchContext: Sendable {
    /// The flags every bench driver takes from its script, besides its own.
    static let setUpOptions = ["bin-dir", "database-url", "work", "out", "command"]
    static let setUpUsage = """
        Set-up (the script passes these): --bin-dir DIR (switchboard, loadtest, writer-bench),
        --database-url URL (a private PostgreSQL with durable settings), --work DIR (scratch),
        --out DIR (reports), --command TEXT (the command line the report quotes).
        """

    let binDirectory: String
    let databaseURL: String
    let work: String
    let out: String
    let command: String
    let secret: String
    let log: DriveLog

    /// From the set-up flags; migrates the database.
    init(flags: DriverFlags, log: DriveLog) throws {
        do throws(DriverFlags.UsageError) {
            binDirectory = try flags.required("bin-dir")
            databaseURL = try flags.required("database-url")
            work = try flags.required("work")
            out = try flags.required("out")
        } catch {
            throw DriveError(error.description)
        }
        command = flags.string("command") ?? "scripts/\(log.tag)"
        secret = HarnessRuns.newSecret()
        self.log = log
        try DatabaseCommands.migrate(binDirectory: binDirectory, databaseURL: databaseURL)
    }

    /// `out/label`, created.
    func directory(_ label: String) throws -> String {
        let path = TextFile.join(out, label)
        try TextFile.makeDirectories(path)
        return path
    }

    func binary(_ name: String) -> String { TextFile.join(binDirectory, name) }

    /// The harness's `scenario` against `urls`, pinned to core 1 at nice -5
    /// where allowed, its report written to `directory`; that report, and what
    /// it printed. The harness's exit status is not the verdict: its report
    /// says what passed.
    func harness(
        _ scenario: String, urls: [String], options: [String], directory: String
    ) throws -> (report: JSONValue, output: String) {
        let more = urls.dropFirst().flatMap { ["--url", $0] }
        let command =
            HarnessRuns.nicePrefix + ["taskset", "-c", "1"]
            + HarnessRuns.command(
                binDirectory: binDirectory, scenario: scenario, url: urls.first ?? "", secret: secret,
                databaseURL: databaseURL, options: more + options + ["--out", directory])
        let run = try CapturedCommand.run(command)
        let path = TextFile.join(directory, scenario + ".json")
        guard let report = HarnessRuns.report(path) else {
            let detail = run.standardError.split(separator: "\n").suffix(5).joined(separator: "\n")
            throw DriveError("loadtest \(scenario) wrote no report \(path) (exit \(run.exit)): \(detail)")
        }
        return (report, run.standardOutput)
    }

    /// The harness's `fanout` scenario against `gateway` (its CPU measured too), with `extra` options.
    func fanout(
        _ gateway: GatewayProcess, sessions: Int, subscribers: Int, rate: Int, seconds: Int, directory: String,
        extra: [String] = []
    ) throws -> JSONValue {
        try harness(
            "fanout", urls: [gateway.url],
            options: [
                "--gateway-pid", String(gateway.pid), "--sessions", String(sessions), "--subscribers",
                String(subscribers), "--rate", String(rate), "--seconds", String(seconds),
            ] + extra, directory: directory
        ).report
    }

    /// A gateway for the bench: one event loop pinned to core 0, its
    /// configuration in the work directory as NAME.toml, its log at `logPath`
    /// (default: the report directory's gateway.log).
    func gateway(
        name: String = "gateway", logPath: String? = nil, serverExtra: String = "", extra: String = ""
    ) throws -> GatewayProcess {
        var config = GatewayConfig(port: try LocalPorts.free(), jwtSecret: secret)
        config.serverExtra = serverExtra
        config.extra = extra
        return try GatewayProcess(
            binDirectory: binDirectory, databaseURL: databaseURL, config: config,
            configPath: TextFile.join(work, name + ".toml"), logPath: logPath ?? TextFile.join(out, "gateway.log"))
    }

    /// A gateway's /metrics, also written to `path`.
    func scrape(_ gateway: GatewayProcess, to path: String) throws -> String {
        let text = try gateway.metrics()
        try TextFile.write(path, text)
        return text
    }

    /// Writes `results` to results.json, then the section: printed with
    /// `quick` (docs/benchmarks.md left alone), else written into
    /// docs/benchmarks.md between the markers of `name`.
    func publish(results: JSONValue, section: String, name: String, title: String, quick: Bool) throws {
        try TextFile.write(TextFile.join(out, "results.json"), results.text + "\n")
        if quick {
            print(section)
            log("a quick or partial run: docs/benchmarks.md left alone")
        } else {
            try BenchmarksDoc.replaceSection(name, with: section)
            log("docs/benchmarks.md: section \(title) written")
        }
    }
}
