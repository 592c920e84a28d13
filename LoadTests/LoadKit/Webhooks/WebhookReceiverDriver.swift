import SwitchboardSystem

#if canImport(Glibc)
import Glibc
#endif

/// `loadtest webhook-receiver PORT [...]`: the `WebhookReceiver` until
/// SIGTERM, SIGINT or `--seconds`; then its summary as one JSON line.
public enum WebhookReceiverDriver {
    public static let usage = """
        usage: loadtest webhook-receiver PORT [--secret whsec_...] [--fail-first N | --status-sequence LIST]
                                         [--per-event] [--seconds S] [--out FILE] [--journal FILE]

        A fast webhook receiver on 127.0.0.1:PORT (0: any free port) for benchmarks and chaos
        runs: one epoll loop serving any number of keep-alive HTTP/1.1 connections. Every
        POST is a webhook: with --secret, its Standard Webhooks signature (webhook-id,
        webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>)
        is checked, and a bad one is answered 401. Per event id it records the first arrival,
        the arrivals (a 2xx to an event already accepted is a duplicate; another arrival
        before that a retry), the signatures, and the latency from the body's "created_at"
        (RFC 3339, milliseconds) to the first 2xx. Answers 200, or: --fail-first N answers
        the first N webhooks 500; --status-sequence 500,503,200 answers them in turn with
        these statuses, then 200; --per-event runs the sequence over each event's own
        arrivals instead (every event fails first, then succeeds).

        GET /stats answers the summary as JSON (counts over the receiver's life; latency
        p50/p90/p99/max and requests/s over the window since it started or since the last
        POST /reset, which answers the summary and starts a new window). --journal FILE
        appends "EVENT_ID STATUS ok|bad|none" per webhook before answering it, so that a
        receiver killed and started again on the same file loses no record. Prints
        "listening on 127.0.0.1:PORT" on standard error once it serves; on SIGTERM, SIGINT or
        after --seconds S prints the summary as one JSON line (and writes it to --out FILE).
        """

    struct Options {
        var receiver: WebhookReceiver.Options
        var seconds: Double?
        var out: String?
    }

    public static func main(_ arguments: [String]) -> Int32 {
        // Blocked before the loop's thread starts, so that only this thread takes them.
        TerminationSignals.block()
        return BenchMain.run(arguments, usage: usage, tag: "webhook-receiver", parse: parse) { options, log in
            let receiver = try WebhookReceiver(options: options.receiver)
            let thread = NamedThread.spawn(name: "wh-receiver") { receiver.run() }
            log("listening on 127.0.0.1:\(receiver.port)")
            let signal = waitForSignal(seconds: options.seconds)
            receiver.stop()
            thread.join()
            guard let summary = receiver.finalSummary else {
                throw DriveError("the receiver's loop ended without a summary")
            }
            let line = summary.json.text
            print(line)
            if let out = options.out { try TextFile.write(out, line + "\n") }
            log(
                "stopped (\(signal ?? "after \(options.seconds.map(PythonFormat.repr) ?? "?") s")): "
                    + "\(summary.delivered) events accepted, \(summary.duplicates) duplicates, "
                    + "\(summary.badSignatures) bad signatures")
            return true
        }
    }

    static func parse(_ arguments: [String]) throws(DriverFlags.UsageError) -> Options {
        let flags = try DriverFlags(
            arguments, options: ["secret", "fail-first", "status-sequence", "seconds", "out", "journal"],
            switchNames: ["per-event", "check"])
        guard flags.positional.count == 1, let port = UInt16(flags.positional[0]) else {
            throw DriverFlags.UsageError(description: "needs PORT (0 to 65535)")
        }
        var receiver = WebhookReceiver.Options(port: port)
        if let secret = flags.string("secret") {
            guard let verifier = WebhookVerifier(secret: secret) else {
                throw DriverFlags.UsageError(description: "--secret must be whsec_ and the key in base64")
            }
            receiver.verifier = verifier
        }
        guard flags.string("fail-first") == nil || flags.string("status-sequence") == nil else {
            throw DriverFlags.UsageError(description: "--fail-first and --status-sequence exclude each other")
        }
        if let text = flags.string("status-sequence") {
            guard let statuses = WebhookStatusPlan.parse(text) else {
                throw DriverFlags.UsageError(description: "--status-sequence needs statuses 200-599, comma-separated")
            }
            receiver.plan.sequence = statuses
        }
        let failures = try flags.int("fail-first", default: 0)
        guard (0...10_000_000).contains(failures) else {
            throw DriverFlags.UsageError(description: "--fail-first must be 0 to 10,000,000")
        }
        if failures > 0 { receiver.plan.sequence = Array(repeating: 500, count: failures) }
        receiver.plan.perEvent = flags.has("per-event")
        receiver.journalPath = flags.string("journal")
        var seconds: Double?
        if flags.string("seconds") != nil {
            let value = try flags.double("seconds", default: 0)
            guard value > 0 else { throw DriverFlags.UsageError(description: "--seconds must be above 0") }
            seconds = value
        }
        return Options(receiver: receiver, seconds: seconds, out: flags.string("out"))
    }

    /// The name of the termination signal that came, or nil when `seconds` passed first.
    static func waitForSignal(seconds: Double?) -> String? {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        let deadline = seconds.map { DriveClock.monotonicSeconds() + $0 }
        while true {
            let left = deadline.map { $0 - DriveClock.monotonicSeconds() } ?? 3600
            if left <= 0 { return nil }
            let slice = min(left, 1)
            var timeout = timespec(tv_sec: Int(slice), tv_nsec: Int((slice - slice.rounded(.down)) * 1e9))
            let signal = sigtimedwait(&set, nil, &timeout)
            if signal == SIGINT { return "SIGINT" }
            if signal == SIGTERM { return "SIGTERM" }
        }
    }
}
