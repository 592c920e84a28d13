import Foundation
import SwitchboardJSON
import SwitchboardPostgres
import SwitchboardWriter
import Synchronization

/// --only floor (and the default run's last part): the batched writer
/// against the bare `INSERT ... SELECT` floor at the same batch sizes
/// (issue 36: within 1.3x at 1,000-message batches, 2x at 20).
///
/// The floor stores the same rows as the writer, in the same columns, with
/// what the writer's function works out beforehand on the client: each
/// row's id (time-ordered, as the function's), its `seq` (counted per
/// session) and its workspace. One prepared statement per batch, one commit
/// each, on `--connections` connections with the writer's plan settings,
/// each storing the messages of its own share of the sessions (as the
/// writer's shards do), batch after batch. So it pays what a row must
/// (heap, five index entries, the foreign key's check, its share of a
/// durable commit) and nothing the writer adds: session locks, dedup,
/// numbering, the session's update, the search backlog's row, results.
///
/// Each batch size runs `--repeats` pairs on new sessions in one database,
/// the order alternating (floor first, then writer first), the database
/// vacuumed and checkpointed before each side, autovacuum off for the tables
/// they write. No search indexer runs: the writer's batches leave their
/// backlog rows. CPU is PostgreSQL's, every
/// process, from /proc (`PostgresCPU`); the ratio that counts is CPU per
/// row, since wall time here is mostly the commit's flush.
struct FloorRun {
    let url: String
    let options: Options

    private struct Side {
        var seconds: Double
        var cpuSeconds: Double
        var batches: Int
        var rows: Int

        var cpuMicrosPerRow: Double { cpuSeconds * 1e6 / Double(rows) }
        var wallMicrosPerRow: Double { seconds * 1e6 / Double(rows) }
    }

    static let statementName = "writer_bench_floor"

    static let statement = """
        INSERT INTO chats (id, session_id, workspace_id, seq, client_msg_id, role, sender_id, sender_name, kind,
                           content)
        SELECT t.id, t.session_id, $2::uuid, t.seq, t.client_msg_id, t.role, t.sender_id, t.sender_name, t.kind,
               t.content
          FROM unnest($1::uuid[], $3::uuid[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[],
                      $9::text[], $10::text[])
               AS t(id, session_id, seq, client_msg_id, role, sender_id, sender_name, kind, content)
        """

    func run() throws {
        // Autovacuum would land in whichever side passes its threshold first (a side of 200,000
        // rows does), by a third of a side's CPU: off for the tables both sides write, and
        // each side starts vacuumed (`settle`). The growth run weighs autovacuum.
        let setup = try PostgresConnection(url)
        for table in ["chats", "chat_sessions", "search_backlog"] {
            try setup.execute("ALTER TABLE \(table) SET (autovacuum_enabled = false)")
        }
        defer {
            for table in ["chats", "chat_sessions", "search_backlog"] {
                try? setup.execute("ALTER TABLE \(table) RESET (autovacuum_enabled)")
            }
        }
        for size in options.floorBatches {
            var pairs: [(floor: Side, writer: Side)] = []
            for repeatIndex in 0..<options.repeats {
                var floor: Side?
                var writer: Side?
                for way in repeatIndex % 2 == 0 ? ["floor", "writer"] : ["writer", "floor"] {
                    try settle(url)
                    let side = way == "floor" ? try runFloor(size: size) : try runWriter(size: size)
                    if way == "floor" { floor = side } else { writer = side }
                    report(
                        "floor_run",
                        [
                            "batch": .int(size), "way": .string(way), "repeat": .int(repeatIndex + 1),
                            "rows": .int(side.rows), "batches": .int(side.batches),
                            "mean_batch": .int(Int((Double(side.rows) / Double(max(side.batches, 1))).rounded())),
                            "seconds": rounded(side.seconds), "per_s": .int(Int(Double(side.rows) / side.seconds)),
                            "pg_cpu_us_per_row": rounded(side.cpuMicrosPerRow),
                            "wall_us_per_row": rounded(side.wallMicrosPerRow),
                        ])
                }
                pairs.append((floor!, writer!))
            }
            func range(_ values: [Double], whole: Bool = false) -> JSONValue {
                let sorted = values.sorted()
                let bounds = [sorted.first ?? 0, sorted.last ?? 0]
                return .array(bounds.map { whole ? .int(Int($0)) : rounded($0) })
            }
            report(
                "floor",
                [
                    "batch": .int(size), "repeats": .int(pairs.count), "rows": .int(options.messages),
                    "floor_pg_cpu_us_per_row": range(pairs.map(\.floor.cpuMicrosPerRow)),
                    "writer_pg_cpu_us_per_row": range(pairs.map(\.writer.cpuMicrosPerRow)),
                    "cpu_ratio": range(pairs.map { $0.writer.cpuMicrosPerRow / $0.floor.cpuMicrosPerRow }),
                    "floor_per_s": range(pairs.map { Double($0.floor.rows) / $0.floor.seconds }, whole: true),
                    "writer_per_s": range(pairs.map { Double($0.writer.rows) / $0.writer.seconds }, whole: true),
                    "wall_ratio": range(pairs.map { $0.writer.wallMicrosPerRow / $0.floor.wallMicrosPerRow }),
                ])
        }
    }

    /// `--connections` threads, each its own connection and its own sessions
    /// (every `connections`-th), sending its rows a batch at a time.
    private func runFloor(size: Int) throws -> Side {
        let setup = try PostgresConnection(url)
        let (workspace, sessions) = try makeSessions(setup, count: options.sessions)
        let lanes = options.connections
        // Ids as the writer's function makes them: a millisecond prefix, then a counter.
        let prefix = String(UInt64(Date().timeIntervalSince1970 * 1000), radix: 16).leftPadded(to: 12)
        var seqs = Array(repeating: 0, count: sessions.count)
        var laneRows: [[[String]]] = Array(repeating: [], count: lanes)
        for index in 0..<options.messages {
            let slot = index % sessions.count
            seqs[slot] += 1
            let tail = String(index, radix: 16).leftPadded(to: 12)
            let id = "\(prefix.prefix(8))-\(prefix.suffix(4))-7000-8000-\(tail)"
            laneRows[slot % lanes].append([
                id, sessions[slot], String(seqs[slot]), "floor-\(index)", "visitor", "v-bench", "", "text", body(index),
            ])
        }
        // Each lane's batches as the statement's parameters, before the clock starts.
        let batches: [[[String?]]] = laneRows.map { rows in
            stride(from: 0, to: rows.count, by: size).map { start in
                let chunk = rows[start..<min(start + size, rows.count)]
                var parameters: [String?] = []
                for column in 0..<9 {
                    let literal = PostgresArray.textLiteral(chunk.map { column == 6 ? nil : $0[column] })
                    parameters.append(literal)
                    if column == 0 { parameters.append(workspace) }
                }
                return parameters
            }
        }
        let connections = try (0..<lanes).map { _ in
            // One lane's connection, used by that lane's thread alone.
            let connection = try PostgresConnection(url)
            try connection.execute(
                "SET plan_cache_mode = force_generic_plan; SET enable_bitmapscan = off; SET enable_seqscan = off")
            try connection.prepare(Self.statementName, Self.statement)
            return UncheckedConnection(connection)
        }
        let failure = Mutex<String?>(nil)
        let cpuBefore = PostgresCPU.seconds()
        let started = now()
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            do {
                for parameters in batches[lane] {
                    _ = try connections[lane].connection.query(prepared: Self.statementName, parameters)
                }
            } catch {
                failure.withLock { $0 = $0 ?? "\(error)" }
            }
        }
        let seconds = Double(now() - started) / 1e9
        let cpu = PostgresCPU.seconds() - cpuBefore
        if let failure = failure.withLock({ $0 }) { fatalError("the floor's insert failed: \(failure)") }
        try checkStored(setup, sessions: sessions)
        return Side(
            seconds: seconds, cpuSeconds: cpu, batches: batches.map(\.count).reduce(0, +), rows: options.messages)
    }

    /// The writer with batches of `size`: all but the first few go full, since every command is
    /// queued as fast as the writer takes it (the side reports its mean batch).
    private func runWriter(size: Int) throws -> Side {
        let setup = try PostgresConnection(url)
        let (_, sessions) = try makeSessions(setup, count: options.sessions)
        let commands = (0..<options.messages).map { index in
            WriteCommand(
                sessionID: sessions[index % sessions.count], clientMessageID: "writer-\(index)", senderRole: "visitor",
                senderID: "v-bench", senderName: nil, kind: "text", body: body(index), origin: 0, token: UInt64(index))
        }
        var sized = options
        sized.batch = size
        let tally = Tally(capacity: 0)
        let writer = startWriter(url, sized, tally)
        let (seconds, cpu) = storeAll(commands, writer, tally)
        let batches = writer.statistics.batchesCommitted
        writer.stop()
        let stored = tally.stored.load(ordering: .relaxed)
        guard stored == options.messages else { fatalError("only \(stored) of \(options.messages) stored") }
        try checkStored(setup, sessions: sessions)
        return Side(seconds: seconds, cpuSeconds: cpu, batches: batches, rows: options.messages)
    }

    /// Every row there, each session's seq gap-free from 1.
    private func checkStored(_ connection: PostgresConnection, sessions: [String]) throws {
        let check = try connection.query(
            """
            SELECT sum(n), sum(d), sum(m) FROM (
                SELECT count(*) AS n, count(DISTINCT seq) AS d, max(seq) AS m FROM chats
                 WHERE session_id = ANY ($1::uuid[]) GROUP BY session_id) x
            """, [PostgresArray.textLiteral(sessions)])
        guard check.int(0, 0) == options.messages, check.int(0, 1) == options.messages,
            check.int(0, 2) == options.messages
        else { fatalError("the database holds \(check.rows) for \(options.messages) messages") }
    }
}

/// A connection handed to the one thread that uses it.
private struct UncheckedConnection: @unchecked Sendable {
    let connection: PostgresConnection
    init(_ connection: PostgresConnection) { self.connection = connection }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
