import SwitchboardAuth
import SwitchboardJSON
import SwitchboardSystem
import Synchronization

/// The soak's three kinds of traffic, each on a thread of its own until
/// `stop` is set, counting into `traffic`.
final class SoakWorkers: Sendable {
    let options: SoakOptions
    let gatewayURL: String
    let port: UInt16
    let secret: String
    let workspace: String
    let log: DriveLog
    let traffic = Mutex(SoakTraffic())
    let stopping = Atomic(false)
    private let finished = Atomic(0)

    init(options: SoakOptions, gatewayURL: String, port: UInt16, secret: String, workspace: String, log: DriveLog) {
        self.options = options
        self.gatewayURL = gatewayURL
        self.port = port
        self.secret = secret
        self.workspace = workspace
        self.log = log
    }

    private var stopped: Bool { stopping.load(ordering: .relaxed) }

    /// Starts the three workers. A worker that dies says so and fails the run,
    /// instead of leaving its traffic out quietly.
    func start() {
        for name in ["harness_rounds", "churn_clients", "api_calls"] {
            _ = NamedThread.spawn(name: "soak-\(name.prefix(10))") {
                do throws(DriveError) {
                    switch name {
                    case "harness_rounds": try self.harnessRounds()
                    case "churn_clients": try self.churnClients()
                    default: try self.apiCalls()
                    }
                } catch {
                    self.traffic.withLock { $0.failures.append("\(name) stopped: \(error)") }
                    self.log("\(name) stopped: \(error)")
                }
                self.finished.add(1, ordering: .relaxed)
            }
        }
    }

    /// Sets `stop` and waits up to `seconds` for the workers to end.
    func stop(waitingUpTo seconds: Double) {
        stopping.store(true, ordering: .relaxed)
        let deadline = DriveClock.monotonicSeconds() + seconds
        while finished.load(ordering: .relaxed) < 3 && DriveClock.monotonicSeconds() < deadline {
            DriveClock.sleep(seconds: 0.1)
        }
    }

    private func token(_ role: Role, _ subject: String) -> String {
        HarnessRuns.token(
            role: role, subject: subject, workspace: workspace, secret: secret,
            seconds: Int64(options.minutes * 60) + 600)
    }

    /// The harness's `conversations` scenario, round after round.
    private func harnessRounds() throws(DriveError) {
        var number = 0
        while !stopped {
            number += 1
            let out = TextFile.join(options.outputDirectory, "round-\(number)")
            let command = HarnessRuns.command(
                binDirectory: options.binDirectory, scenario: "conversations", url: gatewayURL, secret: secret,
                databaseURL: options.databaseURL,
                options: [
                    "--workspace", workspace, "--sessions", String(options.sessions), "--operators", "2", "--rate",
                    String(options.rate), "--seconds", String(options.roundSeconds), "--drain", "20", "--out", out,
                ])
            let run = try CapturedCommand.run(command)
            let report = HarnessRuns.report(TextFile.join(out, "conversations.json"))
            let correctness: JSONValue =
                report.map { $0["correctness"] ?? [:] } ?? ["failures": 1, "note": "no report"]
            let acked = report?["figures"]?["acked"]?["value"]?.doubleValue ?? 0
            let round = SoakRound(number: number, exit: run.exit.code, correctness: correctness, acked: acked)
            traffic.withLock { $0.rounds.append(round) }
            if run.exit.code != 0 {
                log("round \(number): harness exit \(run.exit.code): \(PythonFormat.json(correctness))")
            }
        }
    }

    /// Clients that connect, join a session, type, read, leave and close, over and over.
    private func churnClients() throws(DriveError) {
        let visitorToken = token(.visitor, "soak-churn")
        let operatorToken = token(.operator, "soak-operator")
        let connections: ScriptedConnections
        do {
            connections = try ScriptedConnections(url: gatewayURL, timeout: 5)
        } catch {
            throw DriveError(error.description)
        }
        var sessions: [String] = []
        var cycles = 0
        while !stopped {
            do {
                if sessions.count < 20 {
                    let client = try connections.open()
                    defer { client.abort() }
                    client.send(ClientFrames.hello(token: visitorToken))
                    client.send(ClientFrames.createSession(title: "soak"))
                    var answer = try connections.next(client)
                    while Self.frame(answer)?["type"]?.stringValue != "session" {
                        answer = try connections.next(client)
                    }
                    if let id = Self.frame(answer)?["session"]?["id"]?.stringValue { sessions.append(id) }
                }
                let client = try connections.open()
                client.send(ClientFrames.hello(token: operatorToken))
                if !sessions.isEmpty {
                    let session = sessions[cycles % sessions.count]
                    client.send(ClientFrames.join(sessionID: session, since: 0))
                    client.send(ClientFrames.typing(sessionID: session, state: true))
                    client.send(ClientFrames.typing(sessionID: session, state: false))
                    client.send(ClientFrames.read(sessionID: session, seq: 0))
                    client.send(ClientFrames.leave(sessionID: session))
                }
                client.send(ClientFrames.ping)
                DriveClock.sleep(seconds: 0.05)
                connections.drain(client)
                client.abort()
                cycles += 1
                traffic.withLock { $0.churnCycles += 1 }
            } catch {
                traffic.withLock { $0.churnErrors += 1 }
                DriveClock.sleep(seconds: 0.2)
            }
            DriveClock.sleep(seconds: 0.02)
        }
    }

    /// The inbox over HTTP, then a session's messages and a PATCH of its title, every quarter second.
    private func apiCalls() throws(DriveError) {
        let authorization = [("Authorization", "Bearer \(token(.operator, "soak-api"))")]
        func call(_ method: String, _ path: String, _ body: String? = nil) -> HTTPResponse? {
            let headers = authorization + (body == nil ? [] : [("Content-Type", "application/json")])
            return try? HTTPClient.request(
                method, path, port: port, headers: headers, body: body.map { Array($0.utf8) })
        }
        while !stopped {
            let inbox = call("GET", "/api/v1/admin/live-chat/conversations?limit=20")
            var calls = 1
            var errors = 0
            if inbox?.status != 200 {
                errors += 1
            } else {
                let listed = inbox.flatMap { try? JSONParser.parse($0.body, limits: .reports) }
                let sessions = (listed?["sessions"] ?? listed?["conversations"])?.arrayValue ?? []
                for session in sessions.prefix(2) {
                    let id = session["id"].map { PythonFormat.str($0) } ?? "None"
                    for (method, path, body) in [
                        ("GET", "/api/v1/sessions/\(id)/messages?limit=50", nil),
                        ("PATCH", "/api/v1/sessions/\(id)", #"{"title": "soak checked"}"#),
                    ] {
                        let status = call(method, path, body)?.status
                        calls += 1
                        if status != 200 && status != 404 { errors += 1 }
                    }
                }
            }
            traffic.withLock {
                $0.apiCalls += calls
                $0.apiErrors += errors
            }
            DriveClock.sleep(seconds: 0.25)
        }
    }

    /// A server frame parsed, or nil.
    static func frame(_ text: String) -> JSONValue? { try? JSONParser.parse(text) }
}
