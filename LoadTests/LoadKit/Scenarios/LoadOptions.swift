import SwitchboardAuth
import SwitchboardIdentifiers

/// The command line of `loadtest`: the scenario, where the gateway is, and
/// the sizes. Every size has a default small enough for a laptop.
public struct LoadOptions: Sendable {
    public static let scenarios = ["conversations", "fanout", "idle", "storm", "ramp", "routing"]

    public var scenario = ""
    /// The gateway's nodes, one per `--url`, in the order given (see `NodeSpread`).
    public var endpoints = [GatewayEndpoint(port: 8080, path: "/v1/ws")]
    public var jwtSecret = ""
    public var workspace = ""
    public var databaseURL = ""
    public var gatewayPID: Int32 = 0
    public var outputDirectory = ""
    public var threads = 1
    public var seconds = 10.0
    public var warmupSeconds = 2.0
    public var drainSeconds = 10.0
    public var setupTimeoutSeconds = 60.0
    public var connectConcurrency = 256
    public var bodyBytes = 64
    public var sessions = 100
    public var operators = 2
    public var subscribers = 20
    public var connections = 1000
    public var rate = 1000.0
    public var rampStart = 1000.0
    public var rampStep = 1000.0
    public var rampMax = 10000.0
    public var stepSeconds = 5.0
    public var p99BoundMilliseconds = 25.0
    /// routing: how long an operator keeps a session (0.5 to 1.5 times this),
    /// and how long of every `awayEverySeconds` each operator is away.
    public var holdSeconds = 2.0
    public var awaySeconds = 1.0
    public var awayEverySeconds = 8.0
    /// routing: every operator away while all visitors arrive, then all online at once.
    public var backlog = false
    /// routing: each operator's capacity, set over the API (0: the gateway's).
    public var capacity = 0
    /// conversations, fanout: every delivered message answered with `read`,
    /// as the widget and the console do for a conversation on screen.
    public var sendsReads = false
    /// 0: off. Otherwise the send-to-delivery latency is also split by
    /// alternating wall-clock windows of this many seconds (`AlternatingWindows`).
    public var alternateSeconds = 0.0
    /// With `--alternate`: the start of each window that counts for neither side.
    public var alternateSettleSeconds = AlternatingWindows.defaultSettlingSeconds
    /// Targets the report holds the run to (`ScenarioTargets`; overridable).
    public var targetRate = ScenarioTargets.storedPerSecond
    public var targetDeliveries = ScenarioTargets.deliveriesPerSecond
    /// 0: the scenario's own (`ScenarioTargets`).
    public var targetP99Milliseconds = 0.0
    public var targetBytesPerConnection = ScenarioTargets.bytesPerIdleConnection

    public init() {}

    /// The first node's: the only one's, when the gateway is not a cluster.
    public var host: String { endpoints[0].host }
    public var port: UInt16 { endpoints[0].port }
    public var path: String { endpoints[0].path }

    public struct UsageError: Error, CustomStringConvertible {
        public let description: String
    }

    public static let usage = """
        usage: loadtest SCENARIO --url ws://127.0.0.1:PORT/v1/ws --jwt-secret SECRET [options]
               (the URL's host is an IPv4 address or localhost: the harness never looks names up;
               repeat --url for each node of a cluster: a session's visitor and its operators
               then connect to different nodes)
               (--jwt-secret and --database-url default to SWITCHBOARD_JWT_SECRET and
               SWITCHBOARD_DATABASE_URL, as for the gateway)

        scenarios:
          conversations  --sessions S --operators K --rate R --seconds T
                         S sessions of 1 visitor + K operators; everyone sends, R messages/s in all
          fanout         --sessions S --subscribers M --rate R --seconds T
                         S sessions of 1 sending visitor + M listening operators
          idle           --connections C --sessions S
                         C connections authenticated and joined (S sessions), held; RSS per connection
          storm          --connections C --operators K --rate R --seconds T
                         all connections at once; midway every operator drops and rejoins with since_seq
          ramp           --sessions S --operators K --start R0 --step DR --max RMAX --step-seconds T
                         --p99-bound-ms B: raises the rate until p99 passes B or acks fall behind
          routing        --operators N --sessions M --rate R [--capacity C] [--hold S] [--away-for A]
                         [--away-every P] [--backlog]
                         N operators online (capacity C each, set with PATCH /api/v1/operators/{id}
                         as an admin; default: the gateway's), M visitors arriving R/s,
                         each opening a session and writing once; operators close each session after
                         0.5-1.5 x S (default 2) and are away A s of every P s (1 of 8) while visitors
                         arrive; checks capacity, no double assignment, first come first served (with
                         --database-url), every session assigned; reports first message to assignment;
                         --backlog: everyone away while all visitors arrive, then all online at once (how
                         fast one workspace's queue is given out)

        common options:
          --database-url URL   check every acked message is stored (strongly advised)
          --gateway-pid PID    read the gateway's RSS and CPU time from /proc (in a cluster: the
                               first --url's process)
          --workspace UUID     workspace for the minted tokens (default: a new one per run)
          --out DIR            write DIR/SCENARIO.json and DIR/SCENARIO.html (DIR is created,
                               and checked, before the run)
          --threads N          client loops (default 1; ramp needs 1)
          --warmup S (2)  --drain S (10)  --setup-timeout S (60)  --connect-concurrency N (256)
          --body-bytes B (64)
          --reads              (conversations, fanout) answer every delivered message with `read`, as
                               the widget and the console do while a conversation is on screen
          --alternate S        (conversations, fanout) also report send-to-delivery split by
                               S-second windows of the wall clock, A B B A A B B A (the first
                               250 ms of each left out): something switched on and off on the
                               same clock beside the run is compared within one run
          --alternate-settle S (0.25) the start of each window left out
          --target-rate R (\(Int(ScenarioTargets.storedPerSecond)))  \
        --target-deliveries D (\(Int(ScenarioTargets.deliveriesPerSecond)))
          --target-p99-ms M (\(Int(ScenarioTargets.conversationsP99Milliseconds)); \
        fanout \(Int(ScenarioTargets.fanoutP99Milliseconds)))  --target-bytes B (\(Int(ScenarioTargets.bytesPerIdleConnection)))

        a connection the gateway closes with 1001 (a node shutting down), or that drops, once the
        traffic has started is made again to the same --url (back-off 50 ms doubling to 1 s, 10 attempts):
        hello, join with since_seq, and every send not yet acked re-sent with its client_msg_id

        exit status: 0 passed, 1 a correctness failure (gap, duplicate, reorder, lost ack,
        unanswered send, unexpected close), 2 a usage or set-up error.
        """

    /// `environment` supplies what the gateway itself reads when an option is
    /// absent: SWITCHBOARD_JWT_SECRET and SWITCHBOARD_DATABASE_URL.
    public init(arguments: [String], environment: [String: String] = [:]) throws(UsageError) {
        jwtSecret = environment["SWITCHBOARD_JWT_SECRET"] ?? ""
        databaseURL = environment["SWITCHBOARD_DATABASE_URL"] ?? ""
        guard let first = arguments.first, Self.scenarios.contains(first) else {
            throw UsageError(description: "unknown or missing scenario\n\n\(Self.usage)")
        }
        scenario = first
        var urls: [GatewayEndpoint] = []
        var index = 1
        func value(_ name: String) throws(UsageError) -> String {
            guard index + 1 < arguments.count else { throw UsageError(description: "\(name) needs a value") }
            return arguments[index + 1]
        }
        // At most 1e9: seconds become nanoseconds and rate x seconds a count,
        // and both must fit their integers (a larger value used to trap).
        func number(_ name: String) throws(UsageError) -> Double {
            guard let parsed = Double(try value(name)), parsed >= 0, parsed <= 1_000_000_000 else {
                throw UsageError(description: "\(name) needs a number from 0 to 1,000,000,000")
            }
            return parsed
        }
        func count(_ name: String) throws(UsageError) -> Int {
            let parsed = try number(name)
            guard parsed == parsed.rounded(), parsed < 10_000_000 else {
                throw UsageError(description: "\(name) needs a whole number")
            }
            return Int(parsed)
        }
        while index < arguments.count {
            let name = arguments[index]
            switch name {
            case "--url":
                let endpoint = try Self.parseURL(try value(name))
                // The same node twice would put a session's participants together.
                guard !urls.contains(endpoint) else {
                    throw UsageError(description: "--url \(endpoint.url) is given twice")
                }
                urls.append(endpoint)
            case "--jwt-secret": jwtSecret = try value(name)
            case "--workspace":
                guard let uuid = UUIDText.canonical(try value(name)) else {
                    throw UsageError(description: "--workspace needs a UUID")
                }
                workspace = uuid
            case "--database-url": databaseURL = try value(name)
            case "--gateway-pid": gatewayPID = Int32(try count(name))
            case "--out": outputDirectory = try value(name)
            case "--threads": threads = try count(name)
            case "--seconds": seconds = try number(name)
            case "--warmup": warmupSeconds = try number(name)
            case "--drain": drainSeconds = try number(name)
            case "--setup-timeout": setupTimeoutSeconds = try number(name)
            case "--connect-concurrency": connectConcurrency = try count(name)
            case "--body-bytes": bodyBytes = try count(name)
            case "--sessions": sessions = try count(name)
            case "--operators": operators = try count(name)
            case "--subscribers": subscribers = try count(name)
            case "--connections": connections = try count(name)
            case "--rate": rate = try number(name)
            case "--start": rampStart = try number(name)
            case "--step": rampStep = try number(name)
            case "--max": rampMax = try number(name)
            case "--step-seconds": stepSeconds = try number(name)
            case "--p99-bound-ms": p99BoundMilliseconds = try number(name)
            case "--alternate": alternateSeconds = try number(name)
            case "--alternate-settle": alternateSettleSeconds = try number(name)
            case "--hold": holdSeconds = try number(name)
            case "--away-for": awaySeconds = try number(name)
            case "--away-every": awayEverySeconds = try number(name)
            case "--capacity": capacity = try count(name)
            case "--backlog":
                backlog = true
                index -= 1
            case "--reads":
                sendsReads = true
                index -= 1
            case "--target-rate": targetRate = try number(name)
            case "--target-deliveries": targetDeliveries = try number(name)
            case "--target-p99-ms": targetP99Milliseconds = try number(name)
            case "--target-bytes": targetBytesPerConnection = try number(name)
            default: throw UsageError(description: "unknown option \(name)\n\n\(Self.usage)")
            }
            index += 2
        }
        if !urls.isEmpty { endpoints = urls }
        try validate()
    }

    static func parseURL(_ url: String) throws(UsageError) -> GatewayEndpoint {
        guard url.hasPrefix("ws://") else {
            throw UsageError(description: "--url must be ws://HOST:PORT/PATH (the harness speaks plain WebSocket)")
        }
        let rest = url.dropFirst(5)
        let authority = rest.prefix(while: { $0 != "/" })
        let path = rest.count > authority.count ? String(rest.dropFirst(authority.count)) : "/v1/ws"
        let parts = authority.split(separator: ":")
        guard parts.count == 2, let parsedPort = UInt16(parts[1]) else {
            throw UsageError(description: "--url needs an IPv4 host and a port: ws://127.0.0.1:8080/v1/ws")
        }
        let named = parts[0] == "localhost" ? "127.0.0.1" : String(parts[0])
        // The harness connects to an address, never a name (and must not look names up mid-run).
        guard ClientSocket.ipv4Address(named) != nil else {
            throw UsageError(description: "--url host must be an IPv4 address or localhost, not \(parts[0])")
        }
        return GatewayEndpoint(host: named, port: parsedPort, path: path)
    }

    private func validate() throws(UsageError) {
        if jwtSecret.isEmpty {
            throw UsageError(description: "--jwt-secret is required (the gateway's auth.jwt_secret)")
        }
        if threads < 1 || threads > 64 { throw UsageError(description: "--threads must be 1...64") }
        if (scenario == "ramp" || scenario == "routing") && threads != 1 {
            throw UsageError(description: "\(scenario) runs on one client loop (--threads 1)")
        }
        if scenario == "routing" && (operators < 1 || rate <= 0) {
            throw UsageError(description: "routing needs --operators >= 1 and --rate > 0")
        }
        if sessions < threads { throw UsageError(description: "--sessions must be at least --threads") }
        if bodyBytes < 24 || bodyBytes > 8000 { throw UsageError(description: "--body-bytes must be 24...8000") }
        if scenario == "ramp" && (rampStep < 1 || rampStart <= 0 || rampMax < rampStart) {
            throw UsageError(description: "ramp needs --start > 0, --step >= 1 and --max >= --start")
        }
        if alternateSeconds > 0 {
            guard scenario == "conversations" || scenario == "fanout" else {
                throw UsageError(description: "--alternate applies to conversations and fanout")
            }
            // Shorter windows than a second are mostly settling time.
            guard alternateSeconds >= 1, alternateSeconds * 2 <= seconds else {
                throw UsageError(description: "--alternate needs at least 1 s, and --seconds at least twice it")
            }
            guard alternateSettleSeconds >= 0, alternateSettleSeconds * 2 <= alternateSeconds else {
                throw UsageError(description: "--alternate-settle must be 0 to half of --alternate")
            }
        }
        // Every step must carry traffic, and the ramp must end.
        if scenario == "ramp" && (stepSeconds <= 0 || (rampMax - rampStart) / rampStep > 1000) {
            throw UsageError(description: "ramp needs --step-seconds > 0 and at most 1,000 steps")
        }
    }

    /// The options worth printing with the results, for this scenario.
    var displayed: [(name: String, value: String)] {
        // One node keeps the report as it always was; a cluster lists every node, in --url order.
        let nodes: (String, String) =
            endpoints.count == 1
            ? ("url", endpoints[0].url) : ("urls", endpoints.map { $0.url }.joined(separator: ","))
        var shown: [(String, String)] = [nodes, ("threads", "\(threads)")]
        switch scenario {
        case "conversations":
            shown += [("sessions", "\(sessions)"), ("operators", "\(operators)"), ("rate", "\(Int(rate))")]
        case "fanout":
            shown += [("sessions", "\(sessions)"), ("subscribers", "\(subscribers)"), ("rate", "\(Int(rate))")]
        case "idle":
            shown += [("connections", "\(connections)"), ("sessions", "\(sessions)")]
        case "storm":
            shown += [("connections", "\(connections)"), ("operators", "\(operators)"), ("rate", "\(Int(rate))")]
        case "routing":
            return shown + [
                ("operators", "\(operators)"), ("visitors", "\(sessions)"), ("rate", "\(rate)"),
                ("hold", "\(holdSeconds)"),
                ("away_for", "\(awaySeconds)"), ("away_every", "\(awayEverySeconds)"), ("drain", "\(drainSeconds)"),
            ] + (backlog ? [("backlog", "true")] : []) + (capacity > 0 ? [("capacity", "\(capacity)")] : [])
        default:
            shown += [
                ("sessions", "\(sessions)"), ("operators", "\(operators)"), ("start", "\(Int(rampStart))"),
                ("step", "\(Int(rampStep))"), ("max", "\(Int(rampMax))"), ("step_seconds", "\(stepSeconds)"),
                ("p99_bound_ms", "\(p99BoundMilliseconds)"),
            ]
        }
        if scenario != "idle" {
            shown += [("seconds", "\(seconds)"), ("warmup", "\(warmupSeconds)"), ("body_bytes", "\(bodyBytes)")]
        }
        if sendsReads { shown.append(("reads", "true")) }
        if alternateSeconds > 0 {
            shown.append(("alternate", "\(alternateSeconds)"))
            shown.append(("alternate_settle", "\(alternateSettleSeconds)"))
        }
        return shown
    }
}
