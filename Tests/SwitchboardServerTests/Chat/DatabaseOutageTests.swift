import Foundation
import SwitchboardAuth
import SwitchboardPostgres
import SwitchboardStore
import Synchronization
import Testing

/// PostgreSQL stops in the middle of a conversation and comes back: nothing
/// acknowledged is lost, and the same gateway (in-process) carries on.
///
/// This test runs its own PostgreSQL (through scripts/lib/common.sh, as the
/// scripts do), because stopping the shared test server would break the
/// tests running beside it.
@Suite(.serialized) struct DatabaseOutageTests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Runs a bash snippet with scripts/lib/common.sh loaded; returns its stdout.
    /// posix_spawn + waitpid rather than Foundation's Process, whose
    /// waitUntilExit can miss the child's exit here and wait forever.
    @discardableResult
    private static func shell(_ script: String) throws -> String {
        let output = NSTemporaryDirectory() + "sb-shell-\(UUID().uuidString)"
        let errors = output + ".err"
        defer {
            try? FileManager.default.removeItem(atPath: output)
            try? FileManager.default.removeItem(atPath: errors)
        }
        let command = "cd '\(root)' && . scripts/lib/common.sh && { \(script); } > '\(output)' 2> '\(errors)'"
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/bash"), strdup("-c"), strdup(command), nil]
        defer { for arg in argv { free(arg) } }
        let spawned = posix_spawn(&pid, "/bin/bash", nil, nil, argv, environ)
        guard spawned == 0 else { throw TestFailure("posix_spawn failed: \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            throw TestFailure("script failed (status \(status)): \(script); it said: \(said.suffix(2000))")
        }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func sendsDuringAnOutageAreAckedOrRefusedAndTheConversationResumes() throws {
        let directory = "/tmp/sb-outage-\(UUID().uuidString.prefix(8).lowercased())"
        let start = "ensure_postgres \(directory) --fast >&2; echo \"$SWITCHBOARD_DATABASE_URL\""
        let url = try Self.shell(start)
        defer { _ = try? Self.shell("stop_postgres \(directory) >/dev/null 2>&1; rm -rf \(directory)") }
        try MigrationRunner(connection: PostgresConnection(url)).up()

        let secret = ChatFixture.secret
        let workspace = UUID().uuidString.lowercased()
        let gateway = try EmbeddedGateway { configuration in
            configuration.databaseURL = url
            configuration.jwtSecret = secret
            configuration.chatRatePerSecond = 10_000
            configuration.chatRateBurst = 10_000
        }
        defer { gateway.stop() }
        let visitor = try ChatClient(
            gateway.client(timeoutSeconds: 10), token: TestTokens.make(role: .visitor, workspace: workspace, sub: "v-1")
        )
        let reply = try visitor.request(["type": "session.create"])
        let sessionID = try #require((reply["session"] as? [String: Any])?["id"] as? String)
        let ken = try ChatClient(
            gateway.client(timeoutSeconds: 10),
            token: TestTokens.make(role: .operator, workspace: workspace, sub: "op-ken"))
        _ = try ken.request(["type": "join", "session_id": sessionID])

        var acked: [String: Int] = [:]
        for i in 0..<5 {
            let ack = try visitor.request([
                "type": "send", "session_id": sessionID, "client_msg_id": "pre\(i)", "body": "b",
            ])
            acked["pre\(i)"] = ack.seq
        }

        // A steady stream of sends, about one per millisecond, with PostgreSQL
        // stopped a little way in (from another thread, while this one sends and
        // runs the loops): some commit before, some are in flight. The stop
        // starts once one of them is committed, and the sends go on until it
        // is done and a little after, however long either takes here.
        nonisolated(unsafe) var stopFailure: (any Error)?
        let stopped = DispatchSemaphore(value: 0)
        let isStopped = Atomic<Bool>(false)
        Thread.detachNewThread {
            do {
                do {
                    let watcher = try PostgresConnection(url)
                    let deadline = Date().addingTimeInterval(30)
                    while Date() < deadline,
                        try watcher.query("SELECT count(*) FROM chats WHERE client_msg_id LIKE 'in%'").int(0, 0) == 0
                    {
                        usleep(5_000)
                    }
                }
                try Self.shell("stop_postgres \(directory) >/dev/null 2>&1")
            } catch {
                stopFailure = error
            }
            isStopped.store(true, ordering: .releasing)
            stopped.signal()
        }
        var burst = 0
        var sentAfterStop = 0
        while sentAfterStop < 50 && burst < 60_000 {
            if isStopped.load(ordering: .acquiring) { sentAfterStop += 1 }
            visitor.send([
                "type": "send", "ref": "in\(burst)", "session_id": sessionID, "client_msg_id": "in\(burst)",
                "body": "b",
            ])
            burst += 1
            gateway.runPending()
            usleep(1000)
        }
        stopped.wait()
        if let stopFailure { throw stopFailure }
        var refused: [String] = []
        var answered = 0
        while answered < burst {
            let frame = try visitor.next()
            guard let ref = frame["ref"] as? String, ref.hasPrefix("in") else { continue }
            answered += 1
            switch frame.type {
            case "ack": acked[String(ref)] = frame.seq
            case "error":
                #expect(frame.code == "unavailable" || frame.code == "overloaded", "\(frame)")
                refused.append(String(ref))
            default: Issue.record("unexpected reply \(frame)")
            }
        }
        // The stop must have caught sends in flight, or this test proved nothing.
        #expect(!refused.isEmpty && refused.count < burst)
        // While it is down, a send is refused at once, never acked.
        let down = try visitor.request(["type": "send", "session_id": sessionID, "client_msg_id": "down", "body": "b"])
        #expect(down.type == "error" && down.code == "unavailable", "\(down)")

        #expect(try Self.shell(start) == url)
        // The gateway reconnects by itself; retries with the same ids complete the conversation.
        let deadline = Date().addingTimeInterval(30)
        for clientID in refused + ["down"] {
            while true {
                let answer = try visitor.request([
                    "type": "send", "session_id": sessionID, "client_msg_id": clientID, "body": "b",
                ])
                if answer.type == "ack" {
                    acked[clientID] = answer.seq
                    break
                }
                #expect(answer.code == "unavailable" || answer.code == "overloaded", "\(answer)")
                guard Date() < deadline else { throw TestFailure("the gateway did not recover within 30 s") }
                Thread.sleep(forTimeInterval: 0.2)
            }
        }

        // Every acked message is stored exactly once, numbered 1...N without gaps.
        let connection = try PostgresConnection(url)
        let rows = try connection.query(
            "SELECT client_msg_id, seq FROM chats WHERE session_id = $1::uuid ORDER BY seq", [sessionID])
        var stored: [String: Int] = [:]
        for row in 0..<rows.rowCount { stored[rows.string(row, 0)!] = rows.int(row, 1) }
        #expect(stored.count == acked.count)
        for (clientID, seq) in acked { #expect(stored[clientID] == seq, "\(clientID) acked as \(seq)") }
        #expect(Set(stored.values) == Set(1...stored.count))

        // The operator, connected throughout, saw an unbroken sequence (messages
        // stored before the stop but never acked may arrive on reconnect only
        // through a join, so it rejoins to fill any gap).
        _ = try ken.request(["type": "join", "session_id": sessionID, "since_seq": 0])
        var seen = Set<Int>()
        let drainDeadline = Date().addingTimeInterval(10)
        while seen.count < stored.count && Date() < drainDeadline {
            let frame = try ken.next()
            if frame.type == "message", let seq = frame.seq { seen.insert(seq) }
        }
        #expect(seen == Set(1...stored.count))
    }
}
