import SwitchboardAuth
import SwitchboardJSON
import SwitchboardSystem

#if canImport(Glibc)
import Glibc
#endif

/// An endpoint made over the API: its id and the secret shown once.
public struct WebhookEndpoint: Sendable, Equatable {
    public var id: String
    public var secret: String
}

/// The webhook management API as an admin calls it (PROTOCOL.md, "Webhooks").
public enum WebhookAPI {
    /// `POST /api/v1/webhooks` for `events` to `url`; the endpoint's id and secret.
    public static func create(
        port: UInt16, token: String, url: String, events: [String], description: String
    ) throws(DriveError) -> WebhookEndpoint {
        let body: JSONValue = [
            "url": .string(url), "events": .array(events.map(JSONValue.string)), "description": .string(description),
        ]
        let response = try HTTPClient.request(
            "POST", "/api/v1/webhooks", port: port,
            headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
            body: Array(body.text.utf8), timeoutSeconds: 10)
        guard response.status == 201 || response.status == 200 else {
            throw DriveError("POST /api/v1/webhooks answered \(response.status): \(response.text.prefix(300))")
        }
        guard let answer = try? JSONParser.parse(response.body, limits: .reports), let endpoint = parse(answer) else {
            throw DriveError("POST /api/v1/webhooks: no id and secret in \(response.text.prefix(300))")
        }
        return endpoint
    }

    /// The id and the secret of a creation's answer: at its top level or in a
    /// member `endpoint` or `webhook` (the secret may sit beside it).
    static func parse(_ answer: JSONValue) -> WebhookEndpoint? {
        let nested = answer["endpoint"] ?? answer["webhook"]
        guard let id = answer["id"]?.stringValue ?? nested?["id"]?.stringValue,
            let secret = answer["secret"]?.stringValue ?? nested?["secret"]?.stringValue, secret.hasPrefix("whsec_")
        else { return nil }
        return WebhookEndpoint(id: id, secret: secret)
    }

    /// An admin's token for `workspace`.
    public static func adminToken(workspace: String, secret: String) -> String {
        HarnessRuns.token(role: .admin, subject: "webhooks-admin", workspace: workspace, secret: secret)
    }

    /// The workspace's row, as the gateway makes it on first use, so that an
    /// endpoint can be made before any session.
    public static func ensureWorkspace(_ workspace: String, databaseURL: String) throws(DriveError) {
        try CapturedCommand.check([
            "psql", "-X", "-q", databaseURL, "-v", "ON_ERROR_STOP=1", "-c",
            "INSERT INTO workspaces (id, name) VALUES ('\(workspace)'::uuid, 'Workspace \(workspace)') "
                + "ON CONFLICT (id) DO NOTHING",
        ])
    }
}

/// The outbox as SQL sees it (migration 13's webhook_events and
/// webhook_deliveries, migration 21's webhook_backlog), through psql.
public enum WebhookOutbox {
    /// Deliveries not yet answered 2xx nor given up, and messages whose
    /// events the expander has still to make: the outbox's depth. Each backlog
    /// range is counted by the key (`OFFSET 0`): a join let the planner scan
    /// `chats` against every range, 167-178 ms a call, once a second, in the
    /// database whose CPU the bench reports. Without JIT: the count's cost
    /// passes `jit_above_cost` once the outbox is large, and compiling it took
    /// 71 of its 110 ms a call (`pg_stat_statements`, a capacity run). In one
    /// process: as a parallel query (a leader and two workers over a large
    /// outbox) it took about twice its wall time in CPU, and `OutboxProbe`'s
    /// pause, 20 times that wall time, no longer bounded it (the gateway's
    /// sampler measured so: `BackgroundRole.sessionSettings`).
    public static func pending(_ databaseURL: String) -> Int? {
        count(
            databaseURL,
            """
            SET jit = off;
            SET max_parallel_workers_per_gather = 0;
            SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')
                   + (SELECT count(*) FROM webhook_backlog b
                       CROSS JOIN LATERAL (SELECT 1 FROM chats c WHERE c.id > b.after_id AND c.id <= b.last_id
                                           OFFSET 0) c)
            """)
    }

    /// Messages stored so far in `workspace`: the sum of its sessions'
    /// `last_seq` (each session's seq is gap-free), read from PostgreSQL.
    public static func storedMessages(_ databaseURL: String, workspace: String) -> Int? {
        count(
            databaseURL,
            "SELECT coalesce(sum(last_seq), 0)::bigint FROM chat_sessions WHERE workspace_id = '\(workspace)'::uuid")
    }

    /// Enables or disables the endpoint as `PATCH /api/v1/webhooks/{id}`
    /// with `{"enabled": ...}` does (enabling clears its failure, and wakes
    /// every node's dispatcher with `NOTIFY switchboard_webhooks`), straight
    /// in the database.
    public static func setEnabled(_ databaseURL: String, endpoint: String, enabled: Bool) throws(DriveError) {
        let result = try DatabaseCommands.psql(
            databaseURL,
            """
            UPDATE webhook_endpoints
               SET enabled = \(enabled), disabled_reason = CASE WHEN \(enabled) THEN NULL ELSE disabled_reason END,
                   failing_since = CASE WHEN \(enabled) THEN NULL ELSE failing_since END
             WHERE id = '\(endpoint)'::uuid;
            SELECT pg_notify('switchboard_webhooks', '') WHERE \(enabled);
            """)
        guard result.exit.succeeded else {
            throw DriveError("enabling or disabling webhook endpoint \(endpoint): \(result.standardError.prefix(300))")
        }
    }

    /// Deliveries given up after the last retry.
    public static func failed(_ databaseURL: String) -> Int? {
        count(databaseURL, "SELECT count(*) FROM webhook_deliveries WHERE status = 'failed'")
    }

    /// `message.created` events written for `workspace`.
    public static func messageEvents(_ databaseURL: String, workspace: String) -> Int? {
        count(
            databaseURL,
            "SELECT count(*) FROM webhook_events WHERE type = 'message.created' AND workspace_id = '\(workspace)'")
    }

    /// The ids of `workspace`'s `message.created` events.
    public static func messageEventIDs(_ databaseURL: String, workspace: String) throws(DriveError) -> [String] {
        let result = try CapturedCommand.check([
            "psql", "-X", "-q", "-t", "-A", databaseURL, "-c",
            "SELECT id FROM webhook_events WHERE type = 'message.created' AND workspace_id = '\(workspace)'",
        ])
        return result.standardOutput.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    /// Messages stored in `workspace` that a `message.created` reports: not
    /// system events, not private notes.
    public static func reportableMessages(_ databaseURL: String, workspace: String) -> Int? {
        count(
            databaseURL,
            "SELECT count(*) FROM chats WHERE workspace_id = '\(workspace)' AND kind NOT IN ('event', 'note')")
    }

    static func count(_ databaseURL: String, _ query: String) -> Int? {
        guard let result = try? DatabaseCommands.psql(databaseURL, query), result.exit.succeeded else { return nil }
        return Int(result.standardOutput.trimmingPythonSpace())
    }

    /// Waits until no delivery is pending; the seconds it took, or nil at the
    /// timeout, or (with `stallSeconds`) once the depth has not gone down for
    /// that long: a backlog that still drains is waited for.
    public static func waitUntilDrained(
        _ databaseURL: String, timeoutSeconds: Double, stallSeconds: Double? = nil
    ) -> Double? {
        let start = DriveClock.monotonicSeconds()
        var lowest = Int.max
        var progressed = start
        var probe = OutboxProbe(databaseURL: databaseURL)
        while DriveClock.monotonicSeconds() - start < timeoutSeconds {
            let now = DriveClock.monotonicSeconds()
            if let depth = probe.sample() {
                if depth == 0 { return PythonFormat.round(now - start, 2) }
                if depth < lowest {
                    lowest = depth
                    progressed = now
                }
            }
            if let stallSeconds, now - progressed > stallSeconds { return nil }
            DriveClock.sleep(seconds: 0.25)
        }
        return nil
    }
}

/// The outbox's depth, probed no more often than the probe's own cost
/// allows: over a backlog of hundreds of thousands a count takes about a
/// fifth of a second in the database, whose CPU the bench reports per
/// delivery (probed every quarter second, that is up to a third of a core
/// while a capacity run drains). After a probe that took t seconds the next
/// waits 20 t, so probes take at most a twenty-first of the time; a small
/// outbox is still probed every time it is asked.
public struct OutboxProbe {
    let databaseURL: String
    private var nextAt = 0.0

    public init(databaseURL: String) { self.databaseURL = databaseURL }

    /// The depth, or nil when it is too soon to probe again (or the probe failed).
    public mutating func sample() -> Int? {
        let start = DriveClock.monotonicSeconds()
        guard start >= nextAt else { return nil }
        let depth = WebhookOutbox.pending(databaseURL)
        nextAt = start + 21 * (DriveClock.monotonicSeconds() - start)
        return depth
    }
}

/// `loadtest webhook-receiver` as a driver's child: pinned to `core` (nil:
/// not pinned), its journal kept across restarts, its output in `logPath`.
public final class WebhookReceiverProcess {
    public let port: UInt16
    public let secret: String?
    public let journalPath: String
    public let logPath: String
    public let summaryPath: String
    let command: [String]
    public private(set) var process: SpawnedProcess

    public init(
        binDirectory: String, port: UInt16, secret: String?, journalPath: String, logPath: String, summaryPath: String,
        core: Int?, nice: [String] = HarnessRuns.nicePrefix
    ) throws(DriveError) {
        self.port = port
        self.secret = secret
        self.journalPath = journalPath
        self.logPath = logPath
        self.summaryPath = summaryPath
        command =
            nice + (core.map { ["taskset", "-c", String($0)] } ?? [])
            + [TextFile.join(binDirectory, "loadtest"), "webhook-receiver", String(port)]
            + (secret.map { ["--secret", $0] } ?? []) + ["--journal", journalPath, "--out", summaryPath]
        process = try Self.start(command, port: port, logPath: logPath)
    }

    private static func start(_ command: [String], port: UInt16, logPath: String) throws(DriveError) -> SpawnedProcess {
        let process = try SpawnedProcess(command, output: .file(logPath))
        guard LocalPorts.waitUntilAccepting(port: port, seconds: 30, process: process) else {
            process.stop(timeoutSeconds: 2)
            throw DriveError("the webhook receiver did not listen on \(port) (log \(logPath))")
        }
        return process
    }

    public var pid: pid_t { process.pid }

    /// The http URL an endpoint points at.
    public var url: String { "http://127.0.0.1:\(port)/webhook" }

    /// GET /stats; nil when it does not answer.
    public func stats() -> WebhookReceiverSummary? {
        guard let text = HTTPClient.text("/stats", port: port, timeoutSeconds: 5),
            let json = try? JSONParser.parse(text, limits: .reports)
        else { return nil }
        return WebhookReceiverSummary(json: json)
    }

    /// POST /reset: the summary until now; latency and rates count again from here.
    @discardableResult
    public func reset() -> WebhookReceiverSummary? {
        guard let response = try? HTTPClient.request("POST", "/reset", port: port, timeoutSeconds: 5),
            response.status == 200, let json = try? JSONParser.parse(response.body, limits: .reports)
        else { return nil }
        return WebhookReceiverSummary(json: json)
    }

    /// SIGKILL: the receiver vanishes mid-request, as a crashed one does.
    public func kill() {
        process.signal(SIGKILL)
        process.wait(timeoutSeconds: 10)
    }

    /// Started again on the same port and journal (after `kill` or `stop`).
    public func restart() throws(DriveError) {
        if process.isRunning { process.stop(timeoutSeconds: 5) }
        process = try Self.start(command, port: port, logPath: logPath)
    }

    /// SIGTERM; its final summary (also in `summaryPath`).
    @discardableResult
    public func stop() -> WebhookReceiverSummary? {
        process.stop(timeoutSeconds: 10)
        guard let text = try? TextFile.read(summaryPath), let json = try? JSONParser.parse(text, limits: .reports)
        else { return nil }
        return WebhookReceiverSummary(json: json)
    }

    /// Its journal read back.
    public var journal: WebhookJournal { WebhookJournal.read(journalPath) }
}
