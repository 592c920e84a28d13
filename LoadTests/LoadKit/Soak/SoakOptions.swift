/// The command line of `loadtest soak`.
public struct SoakOptions: Sendable {
    public var binDirectory = ""
    public var databaseURL = ""
    public var workDirectory = ""
    public var outputDirectory = ""
    public var minutes = 30.0
    public var sessions = 200
    public var rate = 500
    /// Seconds per harness round.
    public var roundSeconds = 60
    /// Seconds between samples.
    public var sampleSeconds = 5

    public static let usage = """
        usage: loadtest soak --bin DIR --database-url URL --work DIR --out DIR [--minutes M]
                             [--sessions 200] [--rate 500] [--round S] [--sample S]

        Mixed traffic against a release gateway (two event loops) for M minutes (default 30),
        all at once: the harness's `conversations` scenario in back-to-back rounds of --round
        seconds (every round connects, creates sessions, joins, sends with every message
        checked, and disconnects), churn clients (connect, hello, join a session, typing on and
        off, read, leave, close, over and over) and HTTP API calls (the inbox, a session's
        messages, PATCH of a title).

        Every --sample seconds: the gateway's RSS and open descriptors (/proc), the writer's
        queue depth and the p99 of switchboard_send_stage_seconds{stage="total"} over the
        interval (/metrics). After the first quarter of the run (warm-up) a straight line is
        fitted to each series (Theil-Sen: isolated spikes do not tilt it), the p99's and the queue depth's
        without the samples the host stole more than 0.1 of a core from (`steal` in /proc/stat; not judged
        when that leaves under half); the run fails when a slope is above its bound (RSS 1 MiB,
        1 descriptor, 50 queued commands, 0.5 ms of p99 a minute; a short run may also grow by
        8 MiB, 20 descriptors, 200 commands or 10 ms over its measured part), when a harness
        round finds a correctness failure, a worker stops, the churn clients make no cycle or
        more than 1% of the API calls fail.

        --round and --sample default to 60 and 5, or, for a run of 5 minutes or less, one
        round of the whole run sampled every 2 s. Writes OUT/soak.json and OUT/soak.html (the
        four series charted); a run of 30 minutes or more also writes the "Soak" section of
        docs/benchmarks.md and docs/images/soak.svg. Exit status: 0 passed, 1 failed, 2 usage
        or set-up error.
        """

    public init() {}

    public init(arguments: [String]) throws(DriverFlags.UsageError) {
        let flags = try DriverFlags(
            arguments,
            options: ["bin", "database-url", "work", "out", "minutes", "sessions", "rate", "round", "sample"])
        guard flags.positional.isEmpty else {
            throw DriverFlags.UsageError(description: "unexpected \(flags.positional.joined(separator: " "))")
        }
        binDirectory = try flags.required("bin")
        databaseURL = try flags.required("database-url")
        workDirectory = try flags.required("work")
        outputDirectory = try flags.required("out")
        minutes = try flags.double("minutes", default: minutes)
        guard minutes > 0 else { throw DriverFlags.UsageError(description: "--minutes must be above 0") }
        sessions = try flags.int("sessions", default: sessions)
        rate = try flags.int("rate", default: rate)
        // A run of 5 minutes or less is one round (its connections come and go at
        // its edges, not in the middle of the few samples it has), sampled every 2 s.
        let short = minutes <= 5
        roundSeconds = try flags.int("round", default: short ? Int(minutes * 60) : 60)
        sampleSeconds = try flags.int("sample", default: short ? 2 : 5)
        guard sessions > 0, rate > 0, roundSeconds > 0, sampleSeconds > 0 else {
            throw DriverFlags.UsageError(description: "--sessions, --rate, --round and --sample must be above 0")
        }
    }
}
