/// The command line of `loadtest chaos`.
public struct ChaosOptions: Sendable {
    public enum Mode: String, Sendable {
        case full, quick, drain
    }

    public var binDirectory = ""
    public var databaseURL = ""
    /// The directory scripts/lib/common.sh's `ensure_postgres` started the cluster in (for `restart_postgres`).
    public var pgdata = ""
    public var workDirectory = ""
    public var outputDirectory = ""
    public var mode = Mode.full
    public var sessions = 700
    public var rate = 2000
    public var seconds = 95
    /// Seconds a fault's recovery may take.
    public var recoverySeconds = 30

    /// Seconds after the traffic starts, and the fault applied then.
    public var schedule: [(at: Double, fault: ChaosFault.Kind)] {
        switch mode {
        // The webhook receiver is down for a minute (15 s with --quick) after the PostgreSQL restart,
        // through the two gateway stops: deliveries fail and wait for their retries meanwhile.
        case .full:
            return [
                (8, .terminate), (16, .slow), (26, .pgRestart), (28, .receiverDown), (40, .sigkill), (54, .sigterm),
                (88, .receiverUp),
            ]
        case .quick:
            return [
                (5, .terminate), (10, .slow), (16, .pgRestart), (18, .receiverDown), (24, .sigkill), (32, .sigterm),
                (33, .receiverUp),
            ]
        // One SIGTERM under load, judged strictly (every client told 1001, the exit within the grace).
        case .drain: return [(8, .sigterm)]
        }
    }

    /// server.shutdown_grace_s of the gateway under test.
    public static let drainGraceSeconds = 5

    /// Whether the run has an endpoint and a receiver (not with --drain, which is about one SIGTERM).
    public var webhooks: Bool { mode != .drain }

    /// The report's name: OUT/chaos.html, or OUT/drain.html with --drain.
    public var reportName: String { mode == .drain ? "drain" : "chaos" }

    public static let usage = """
        usage: loadtest chaos --bin DIR --database-url URL --pgdata DIR --work DIR --out DIR
                              [--quick | --drain] [--sessions N] [--rate R] [--seconds S] [--recovery S]

        The harness's `conversations` load (N sessions of a visitor and two operators, R msg/s for
        S seconds) against a release gateway (two event loops) while faults are applied, in order
        (seconds after the traffic starts):
          terminate   pg_terminate_backend on the writer's and the readers' connections (8 s)
          slow        an operator console that subscribes to the inbox and stops reading (16 s)
          pg-restart  PostgreSQL restarted (restart_postgres of scripts/lib/common.sh) (26 s)
          webhook-receiver-down  the webhook receiver killed with SIGKILL (28 s)
          sigkill     the gateway killed with SIGKILL, then started again on its port (40 s)
          sigterm     the gateway stopped with SIGTERM (its clients get 1001), then started
                      again: every client reconnects at once (54 s)
          webhook-receiver-up    the receiver started again on its port, a minute later (88 s)
        Defaults: 700 sessions, 2,000 msg/s, 95 s. --quick: 300 sessions, 1,000 msg/s, 40 s, the
        faults at 5, 10, 16, 18, 24, 32 and 33 s (the receiver down for 15 s).

        Webhooks (not with --drain): before the traffic an admin makes an endpoint for
        message.created in the run's workspace (POST /api/v1/webhooks) pointing at
        `loadtest webhook-receiver`, which checks every signature and journals every event it
        accepts before answering. The gateway runs with `[webhooks] allow_private_targets =
        true` and the test-only `retry_divisor = 300`: the retry schedule (5 s, 5 min, 30 min,
        2 h, 5 h, 10 h, 10 h) shrinks to 0.017, 1, 6, 24, 60, 120 and 120 s, or a receiver down for
        a minute would leave its deliveries waiting for the 5-minute retry. After the traffic
        the outbox must drain (going down at least once every 150 s, within 30 minutes; 10 with
        --quick), and then every message.created event written must be in the journal with a
        good signature, every message stored must have its event, and no delivery may have
        failed for good; duplicates are reported.

        Fails on a correctness failure of the harness (an acked message missing from the
        database, a gap, duplicate or reorder at a subscriber, an unexpected close, a send left
        unanswered), acked messages not checked against the database, a gateway not ready and
        storing again within --recovery seconds (30) of a fault (terminate, slow and pg-restart
        restart nothing: it must recover by itself), deliveries that do not resume after the last
        fault, a slow consumer that is not cut off, or a webhook event lost (above).

        --drain: 1,667 sessions at 1,000 msg/s for 20 s, one SIGTERM after 8 s
        (shutdown_grace_s = 5); also fails unless every client was closed with 1001, none lost its
        connection without a close frame, and the process exited 0 within the grace.

        Writes OUT/chaos.html and OUT/chaos.json (drain.html and drain.json with --drain), the
        harness's report and its output (loadtest.txt), the gateway's log, and the receiver's
        journal, log and summary (webhooks.journal, webhooks.log, webhooks.json). Exit status: 0
        passed, 1 failed, 2 usage or set-up error.
        """

    public init() {}

    /// A mode's sizes first; --sessions, --rate and --seconds given beside it win.
    public init(arguments: [String]) throws(DriverFlags.UsageError) {
        let flags = try DriverFlags(
            arguments,
            options: [
                "bin", "database-url", "pgdata", "work", "out", "sessions", "rate", "seconds", "recovery",
            ], switchNames: ["quick", "drain"])
        guard flags.positional.isEmpty else {
            throw DriverFlags.UsageError(description: "unexpected \(flags.positional.joined(separator: " "))")
        }
        guard !(flags.has("quick") && flags.has("drain")) else {
            throw DriverFlags.UsageError(description: "--quick and --drain exclude each other")
        }
        binDirectory = try flags.required("bin")
        databaseURL = try flags.required("database-url")
        pgdata = try flags.required("pgdata")
        workDirectory = try flags.required("work")
        outputDirectory = try flags.required("out")
        if flags.has("quick") {
            (mode, sessions, rate, seconds) = (.quick, 300, 1000, 40)
        } else if flags.has("drain") {
            (mode, sessions, rate, seconds) = (.drain, 1667, 1000, 20)
        }
        sessions = try flags.int("sessions", default: sessions)
        rate = try flags.int("rate", default: rate)
        seconds = try flags.int("seconds", default: seconds)
        recoverySeconds = try flags.int("recovery", default: recoverySeconds)
        guard sessions > 0, rate > 0, seconds > 0, recoverySeconds > 0 else {
            throw DriverFlags.UsageError(description: "--sessions, --rate, --seconds and --recovery must be above 0")
        }
    }
}
