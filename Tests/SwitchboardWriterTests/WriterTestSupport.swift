import Foundation
import SwitchboardPostgres
import SwitchboardTestSupport
import SwitchboardWriter
import Synchronization

/// Collects every result the writer reports, and how they were grouped.
final class ResultCollector: Sendable {
    private struct State {
        var results: [WriteResult] = []
        var batchSizes: [Int] = []
        var arrivals: [UInt64: ContinuousClock.Instant] = [:]
    }

    private let state = Mutex(State())

    var sink: @Sendable (WriterBatchResult) -> Void {
        { [self] batch in
            let now = ContinuousClock.now
            state.withLock {
                $0.results.append(contentsOf: batch.results)
                $0.batchSizes.append(batch.results.count)
                for result in batch.results { $0.arrivals[result.token] = now }
            }
        }
    }

    var results: [WriteResult] { state.withLock { $0.results } }
    var count: Int { state.withLock { $0.results.count } }
    var batchSizes: [Int] { state.withLock { $0.batchSizes } }

    func arrival(of token: UInt64) -> ContinuousClock.Instant? { state.withLock { $0.arrivals[token] } }

    /// Waits until at least `count` results arrived; returns them all.
    func wait(for count: Int, timeout: Double = 60) throws -> [WriteResult] {
        guard waitUntil(timeout: timeout, { self.count >= count }) else {
            throw TestFailure("only \(self.count) of \(count) results arrived within \(timeout) s")
        }
        return results
    }

    /// Results by token (each token must have exactly one).
    func byToken() throws -> [UInt64: WriteResult] {
        var map: [UInt64: WriteResult] = [:]
        for result in results {
            guard map.updateValue(result, forKey: result.token) == nil else {
                throw TestFailure("token \(result.token) got more than one result")
            }
        }
        return map
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func waitUntil(timeout: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.002)
    }
    return condition()
}

/// A workspace with `count` sessions; returns the session ids.
func makeSessions(_ db: TestDatabase, count: Int) throws -> [String] {
    let connection = try db.connect()
    let workspace = UUID().uuidString.lowercased()
    try connection.query("INSERT INTO workspaces (id, name) VALUES ($1, 'writer tests')", [workspace])
    var sessions: [String] = []
    for index in 0..<count {
        let session = UUID().uuidString.lowercased()
        try connection.query(
            "INSERT INTO chat_sessions (id, workspace_id, user_id) VALUES ($1, $2, $3)",
            [session, workspace, "v-\(index)"])
        sessions.append(session)
    }
    return sessions
}

func command(session: String, clientID: String, token: UInt64, body: String? = nil, origin: Int = 0) -> WriteCommand {
    WriteCommand(
        sessionID: session, clientMessageID: clientID, senderRole: "visitor", senderID: "v-1", senderName: "Ann",
        kind: "text", body: body ?? "message \(token)", origin: origin, token: token)
}

/// Starts a writer and waits for its first connection.
func startedWriter(_ configuration: WriterConfiguration, _ collector: ResultCollector) throws -> BatchWriter {
    let writer = BatchWriter(configuration: configuration, sink: collector.sink)
    writer.start()
    guard waitUntil(timeout: 10, { writer.isConnected }) else { throw TestFailure("the writer did not connect") }
    return writer
}

/// A writer of one connection (one shard: with two, sessions may hash to
/// different shards and neither fills its batch) whose batches go only when
/// `messages` have been submitted: each test's batches are exactly the ones
/// it plans.
func batchesOf(_ messages: Int, _ db: TestDatabase, _ collector: ResultCollector) throws -> BatchWriter {
    try startedWriter(
        WriterConfiguration(
            databaseURL: db.url, maxBatchMessages: messages, maxBatchDelayMilliseconds: 60_000, connections: 1),
        collector)
}

/// Submits, retrying for up to 30 s while the queue is full (the tests go faster than the
/// database); a writer that stays full that long answers `.overloaded`, which the caller's check fails.
func submitRetrying(_ writer: BatchWriter, _ command: WriteCommand) -> SubmitOutcome {
    var outcome = writer.submit(command)
    let deadline = Date().addingTimeInterval(30)
    while outcome == .overloaded && Date() < deadline {
        Thread.sleep(forTimeInterval: 0.001)
        outcome = writer.submit(command)
    }
    return outcome
}

/// Every stored row: client_msg_id -> (id, session, seq).
struct StoredRow: Equatable {
    var id: String
    var sessionID: String
    var seq: Int64
}

func storedRows(_ db: TestDatabase) throws -> [String: [StoredRow]] {
    let connection = try db.connect()
    let result = try connection.query("SELECT client_msg_id, id, session_id, seq FROM chats")
    var rows: [String: [StoredRow]] = [:]
    for row in 0..<result.rowCount {
        rows[result.string(row, 0)!, default: []].append(
            StoredRow(id: result.string(row, 1)!, sessionID: result.string(row, 2)!, seq: Int64(result.int(row, 3)!)))
    }
    return rows
}

/// Fails unless every session's seqs are exactly 1...n; returns n per session.
func checkGapFree(_ db: TestDatabase) throws -> [String: Int] {
    let connection = try db.connect()
    let result = try connection.query(
        """
        SELECT c.session_id, count(*), min(c.seq), max(c.seq), count(DISTINCT c.seq), max(s.last_seq)
          FROM chats c JOIN chat_sessions s ON s.id = c.session_id GROUP BY c.session_id
        """)
    var counts: [String: Int] = [:]
    for row in 0..<result.rowCount {
        let (count, low, high, distinct, last) = (
            result.int(row, 1)!, result.int(row, 2)!, result.int(row, 3)!, result.int(row, 4)!, result.int(row, 5)!
        )
        guard low == 1, high == count, distinct == count, last == count else {
            throw TestFailure(
                "session \(result.string(row, 0)!): \(count) rows, seq \(low)...\(high), \(distinct) distinct, last_seq \(last)"
            )
        }
        counts[result.string(row, 0)!] = count
    }
    return counts
}

func terminateWriterBackends(_ db: TestDatabase) throws -> Int {
    let connection = try db.connect()
    let result = try connection.query(
        """
        SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = 'switchboard-writer'
        """)
    return result.int(0, 0) ?? 0
}

extension WriteOutcome {
    var message: StoredMessage? {
        switch self {
        case .stored(let message), .duplicate(let message): return message
        default: return nil
        }
    }

    var isStored: Bool {
        if case .stored = self { return true }
        return false
    }

    var isDuplicate: Bool {
        if case .duplicate = self { return true }
        return false
    }
}

/// A one-way switch another thread can throw.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}
