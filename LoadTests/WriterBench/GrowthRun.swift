import Foundation
import SwitchboardJSON
import SwitchboardPostgres
import SwitchboardWriter
import Synchronization

/// --only growth: whether a stored message costs the same at ten million
/// rows as at a hundred thousand (issue 36). The batched writer fills
/// `chats` step by step (`--step` messages each, up to `--rows`), as fast as
/// it takes them, and each step reports its stored messages/s, PostgreSQL's
/// CPU per message (every process, autovacuum's workers included, so a
/// vacuum shows in the step it ran in), its batches' commit p50/p99, the
/// autovacuums and checkpoints that ran during it, and `chats`' heap and
/// index sizes at its end. No search indexer runs: the batches leave their
/// backlog rows as in the gateway, and what indexing costs is measured
/// elsewhere (docs/benchmarks.md, "Search"). Each step's commands are built
/// before its clock starts.
struct GrowthRun {
    let url: String
    let options: Options

    private struct Counters {
        var vacuums: Int
        var checkpoints: Int
        var heapBytes: Int
        var indexBytes: Int
    }

    func run() throws {
        let connection = try PostgresConnection(url)
        let (_, sessions) = try makeSessions(connection, count: options.sessions)
        let commits = Mutex<[Double]>([])
        let tally = Tally(capacity: 0)
        let sink = tally.sink
        let writer = BatchWriter(configuration: configuration(url, options)) { batch in
            // Before the tally counts the batch: a step ends when the tally has its last result.
            if let micros = batch.commitLatencyMicroseconds { commits.withLock { $0.append(Double(micros) / 1000) } }
            sink(batch)
        }
        writer.start()
        while !writer.isConnected { usleep(1000) }
        var done = 0
        while done < options.rows {
            let count = min(options.step, options.rows - done)
            let commands = (done..<done + count).map { index in
                WriteCommand(
                    sessionID: sessions[index % sessions.count], clientMessageID: "growth-\(index)",
                    senderRole: "visitor", senderID: "v-bench", senderName: nil, kind: "text", body: body(index),
                    origin: 0, token: UInt64(index))
            }
            let before = try counters(connection)
            commits.withLock { $0.removeAll(keepingCapacity: true) }
            let cpuBefore = PostgresCPU.seconds()
            let started = now()
            for command in commands {
                while writer.submit(command) == .overloaded { usleep(1000) }
            }
            while tally.done < done + count { usleep(1000) }
            let seconds = Double(now() - started) / 1e9
            let cpu = PostgresCPU.seconds() - cpuBefore
            let after = try counters(connection)
            let latencies = commits.withLock { $0.sorted() }
            done += count
            report(
                "growth",
                [
                    "rows": .int(done), "messages": .int(count), "seconds": rounded(seconds),
                    "per_s": .int(Int(Double(count) / seconds)),
                    "pg_cpu_us_per_message": rounded(cpu * 1e6 / Double(count)), "batches": .int(latencies.count),
                    "commit_p50_ms": rounded(nearestRank(latencies, 0.5)),
                    "commit_p99_ms": rounded(nearestRank(latencies, 0.99)),
                    "autovacuums": .int(after.vacuums - before.vacuums),
                    "checkpoints": .int(after.checkpoints - before.checkpoints),
                    "chats_heap_mb": .int(after.heapBytes >> 20), "chats_indexes_mb": .int(after.indexBytes >> 20),
                ])
        }
        writer.stop()
        let stored = tally.stored.load(ordering: .acquiring)
        guard stored == options.rows else { fatalError("only \(stored) of \(options.rows) commands were stored") }
        let check = try connection.query(
            "SELECT count(*) FROM chats WHERE session_id = ANY ($1::uuid[])",
            ["{" + sessions.joined(separator: ",") + "}"])
        guard check.int(0, 0) == options.rows else {
            fatalError("the database holds \(check.rows) rows for \(options.rows) messages")
        }
    }

    /// Autovacuums and autoanalyzes of `chats`, checkpoints, and its sizes
    /// (the statistics counters lag by up to PostgreSQL's stats interval).
    private func counters(_ connection: PostgresConnection) throws -> Counters {
        let result = try connection.query(
            """
            SELECT (SELECT autovacuum_count + autoanalyze_count FROM pg_stat_user_tables WHERE relname = 'chats'),
                   (SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter),
                   pg_table_size('chats'), pg_indexes_size('chats')
            """)
        return Counters(
            vacuums: Int(result.int(0, 0) ?? 0), checkpoints: Int(result.int(0, 1) ?? 0),
            heapBytes: Int(result.int(0, 2) ?? 0), indexBytes: Int(result.int(0, 3) ?? 0))
    }
}
