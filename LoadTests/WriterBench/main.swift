// writer-bench: stored messages per second of the batched writer against the
// naive way (one autocommitted INSERT per message), and the writer's commit
// latency under an open-loop offered rate. Run through scripts/bench-writer,
// which starts a durable private PostgreSQL and writes docs/benchmarks.md.
//
//   writer-bench --database-url URL [--sessions 100] [--messages 200000]
//                [--naive-messages 200000] [--batch 1024] [--delay-ms 0] [--interval-us 2000] [--split-mark 256]
//                [--depth 2] [--connections 2] [--rate 10000] [--seconds 10] [--skip-naive]
//                [--notify] [--webhook] [--without-search-index] [--without-indexer] [--search-share 5]
//                [--only batched|latency|alternate|growth|floor] [--windows 8] [--window-seconds 10]
//                [--settle-seconds 1] [--same-sides] [--rows 10000000] [--step 1000000]
//                [--floor-batches 1000,20] [--repeats 3]
//
// Search (migration 20): each batch leaves its id range in the search backlog,
// and an indexer like the gateway's (`ChatQueries.indexSearchBacklog` on a
// thread of its own, paced as the gateway's default `AfterCommitPacing`)
// writes the vectors while the writer runs, so its CPU is in the run. The batched line reports how long
// after the last commit the backlog took to drain and the rate counted to
// that moment (stored and searchable).
// --without-search-index: no search at all (migrated up, then down to
// migration 18, and no indexer), so scripts/bench-search weighs what search
// costs the writer. That is also the append function of migration 18, without
// what later migrations changed in it (22's free space on session pages, 27's
// dropped index, the fast path's later work): to weigh a writer change, run
// with search, as the gateway does. --without-indexer: the schema of today,
// search triggers and backlog rows included, but no indexer beside the
// writer (the backlog is left to grow): the writer's own cost on the schema
// the gateway runs. --search-share: the indexer's share of its connection's
// time while the writer has commands waiting (the gateway's
// search.index_busy_share_percent; 100: it never yields).
//
// --only alternate: what the indexer costs a saturated writer within one
// run: the writer stores without pause, the indexer paused in A windows and
// running in B windows taken A B B A (--same-sides: paused in both, an A/A
// run of the method's noise); AlternatingSearch.swift.
//
// --only growth: the cost per message as `chats` grows to --rows, one line
// per --step messages (GrowthRun.swift).
//
// --only floor (also the default run's last part): the batched writer against
// the bare INSERT ... SELECT of the same rows at each of --floor-batches,
// --repeats pairs each (FloorRun.swift).
//
// --webhook: the measured workspace has an endpoint subscribed to
// message.created, so every batch also writes its backlog row, and the
// webhook expander (a thread of its own, paced as the gateway's default
// `AfterCommitPacing.webhooks`) makes the events and deliveries from it
// while the writer stores (scripts/bench-writer --webhook-cost compares).
//
// --notify: every batch's messages are also sent with NOTIFY after its
// commit, as a gateway with `cluster.bus = "postgres"` does, and another
// node's bus takes them (scripts/bench-cluster compares).
//
// Prints one JSON object per line per measurement, with its "kind"
// (docs/benchmarks.md, "Output formats").
import Foundation
import SwitchboardChat
import SwitchboardCluster
import SwitchboardJSON
import SwitchboardPostgres
import SwitchboardReaders
import SwitchboardStore
import SwitchboardSystem
import SwitchboardWriter
import Synchronization

struct Options {
    var databaseURL = ProcessInfo.processInfo.environment["SWITCHBOARD_DATABASE_URL"] ?? ""
    var sessions = 100
    var messages = 200_000
    var naiveMessages = 200_000
    var batch = 1024
    var delayMilliseconds = 0
    /// The writer's own default, as the gateway runs it.
    var intervalMicroseconds = WriterConfiguration(databaseURL: "").minBatchIntervalMicroseconds
    var splitMark = WriterConfiguration(databaseURL: "").splitMarkMessages
    var depth = 2
    var connections = 2
    var rate = 10_000
    var seconds = 10
    var skipNaive = false
    var notify = false
    var webhook = false
    var searchIndex = true
    var runsIndexer = true
    var searchShare = AfterCommitPacing.search.busySharePercent
    var only: String?
    var windows = 8
    var windowSeconds = 10
    var settleSeconds = 1
    var sameSides = false
    var rows = 10_000_000
    var step = 1_000_000
    var floorBatches = [1000, 20]
    var repeats = 3

    /// Whether an indexer runs beside the writer: search in the schema, and not `--without-indexer`.
    var indexes: Bool { searchIndex && runsIndexer }

    static let usage = """
        usage: writer-bench --database-url URL [--sessions 100] [--messages 200000]
                            [--naive-messages 200000] [--batch 1024] [--delay-ms 0] [--interval-us 2000] [--split-mark 256]
                            [--depth 2] [--connections 2] [--rate 10000] [--seconds 10] [--skip-naive]
                            [--notify] [--webhook] [--without-search-index] [--without-indexer] [--search-share 5]
                            [--only batched|latency|alternate|growth|floor] [--windows 8] [--window-seconds 10]
                            [--settle-seconds 1] [--same-sides] [--rows 10000000] [--step 1000000]
                            [--floor-batches 1000,20] [--repeats 3]
        (SWITCHBOARD_DATABASE_URL stands in for --database-url; scripts/bench-writer runs it)
        """

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        func count(_ name: String, minimum: Int = 1) -> Int {
            guard let text = iterator.next() else { Self.fail("\(name) needs a value") }
            guard let number = Int(text), number >= minimum else {
                Self.fail("\(name) must be an integer of at least \(minimum), not '\(text)'")
            }
            return number
        }
        while let argument = iterator.next() {
            switch argument {
            case "--database-url":
                guard let url = iterator.next() else { Self.fail("--database-url needs a value") }
                databaseURL = url
            case "--sessions": sessions = count(argument)
            case "--messages": messages = count(argument)
            case "--naive-messages": naiveMessages = count(argument)
            case "--batch": batch = count(argument)
            case "--delay-ms": delayMilliseconds = count(argument, minimum: 0)
            case "--interval-us": intervalMicroseconds = count(argument, minimum: 0)
            case "--split-mark": splitMark = count(argument, minimum: 1)
            case "--depth": depth = count(argument)
            case "--connections": connections = count(argument)
            case "--rate": rate = count(argument)
            case "--seconds": seconds = count(argument)
            case "--skip-naive": skipNaive = true
            case "--notify": notify = true
            case "--webhook": webhook = true
            case "--without-search-index": searchIndex = false
            case "--without-indexer": runsIndexer = false
            case "--search-share":
                searchShare = count(argument)
                if searchShare > 100 { Self.fail("--search-share is a percentage, 1 to 100") }
            case "--only":
                guard let which = iterator.next(),
                    ["batched", "latency", "alternate", "growth", "floor"].contains(which)
                else {
                    Self.fail("--only takes batched, latency, alternate, growth or floor")
                }
                only = which
            case "--windows":
                windows = count(argument)
                if windows % 4 != 0 { Self.fail("--windows is a multiple of 4 (A B B A)") }
            case "--window-seconds": windowSeconds = count(argument, minimum: 2)
            case "--settle-seconds": settleSeconds = count(argument, minimum: 0)
            case "--same-sides": sameSides = true
            case "--rows": rows = count(argument)
            case "--step": step = count(argument)
            case "--floor-batches":
                guard let text = iterator.next() else { Self.fail("--floor-batches needs a value") }
                let sizes = text.split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
                if sizes.isEmpty || sizes.count != text.split(separator: ",").count {
                    Self.fail("--floor-batches takes batch sizes separated by commas, not '\(text)'")
                }
                floorBatches = sizes
            case "--repeats": repeats = count(argument)
            case "-h", "--help":
                print(Self.usage)
                exit(0)
            default: Self.fail("unknown option \(argument)")
            }
        }
        if databaseURL.isEmpty { Self.fail("--database-url or SWITCHBOARD_DATABASE_URL is required") }
        if settleSeconds >= windowSeconds { Self.fail("--settle-seconds must be shorter than --window-seconds") }
        if connections > 64 { Self.fail("--connections is 1 to 64, as writer.connections") }
        if only == "alternate" && !indexes {
            Self.fail("--only alternate weighs the search indexer")
        }
    }

    /// A usage error: the message and the usage on stderr, exit status 2.
    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("writer-bench: \(message)\n\(usage)\n".utf8))
        exit(2)
    }
}

/// Prints one result as a line of JSON, at once (stdout is a pipe under the script).
/// The shapes are in docs/benchmarks.md, "Output formats".
func report(_ kind: String, _ fields: JSONValue) {
    var line: JSONObject = ["kind": .string(kind)]
    for (key, value) in fields.objectValue?.members ?? JSONObject().members { line[key] = value }
    print(JSONValue.object(line).text)
    fflush(nil)
}

/// Two decimals are all a figure here carries.
func rounded(_ value: Double) -> JSONValue { .double(value.isFinite ? (value * 100).rounded() / 100 : 0) }

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// The `p` quantile of `sorted` (ascending) by nearest rank; 0 when it is empty.
func nearestRank(_ sorted: [Double], _ p: Double) -> Double {
    sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

/// A fresh database named `writer_bench` next to the one in `url`, migrated (without search, if asked:
/// down to migration 18, before any of it).
func prepareDatabase(_ url: String, searchIndex: Bool) throws -> String {
    let admin = try PostgresConnection(url)
    try admin.execute("DROP DATABASE IF EXISTS writer_bench")
    try admin.execute("CREATE DATABASE writer_bench")
    let benchURL = PostgresURL.replacingDatabase(in: url, with: "writer_bench")
    let connection = try PostgresConnection(benchURL)
    try MigrationRunner(connection: connection).up()
    if !searchIndex { try MigrationRunner(connection: connection).migrateDown(to: 18) }
    return benchURL
}

/// A workspace with `count` new sessions.
func makeSessions(_ connection: PostgresConnection, count: Int) throws -> (workspace: String, sessions: [String]) {
    let workspace = UUID().uuidString.lowercased()
    try connection.query("INSERT INTO workspaces (id, name) VALUES ($1, 'bench')", [workspace])
    let result = try connection.query(
        """
        INSERT INTO chat_sessions (workspace_id, user_id)
        SELECT $1, 'v-' || g FROM generate_series(1, $2::int) g RETURNING id
        """, [workspace, String(count)])
    return (workspace, (0..<result.rowCount).map { result.string($0, 0)! })
}

func body(_ index: Int) -> String { "bench message \(index): the quick brown fox jumps over the lazy dog" }

/// One autocommitted INSERT per message, seq counted client-side. The
/// parameters are built before the clock starts, as the batched run's commands are.
func runNaive(_ url: String, _ options: Options) throws -> Double {
    let connection = try PostgresConnection(url)
    let (workspace, sessions) = try makeSessions(connection, count: options.sessions)
    var seqs = Array(repeating: 0, count: sessions.count)
    let parameters: [[String?]] = (0..<options.naiveMessages).map { index in
        let slot = index % sessions.count
        seqs[slot] += 1
        return [sessions[slot], workspace, String(seqs[slot]), "naive-\(index)", body(index)]
    }
    let started = now()
    for values in parameters {
        try connection.query(
            """
            INSERT INTO chats (session_id, workspace_id, seq, client_msg_id, role, sender_id, kind, content)
            VALUES ($1, $2, $3, $4, 'visitor', 'v-bench', 'text', $5)
            """, values)
    }
    let seconds = Double(now() - started) / 1e9
    let rate = Double(options.naiveMessages) / seconds
    report("naive", ["messages": .int(options.naiveMessages), "seconds": rounded(seconds), "per_s": .int(Int(rate))])
    return rate
}

/// Counts results as the writer reports them; per-token completion times for latency.
final class Tally: @unchecked Sendable {
    let stored = Atomic<Int>(0)
    let other = Atomic<Int>(0)
    let lastResult = Atomic<UInt64>(0)
    /// Written by the writer thread at distinct indexes, read after the run
    /// (the Atomic counters order the accesses).
    let completedAt: UnsafeMutableBufferPointer<UInt64>

    init(capacity: Int) {
        completedAt = .allocate(capacity: max(capacity, 1))
        completedAt.initialize(repeating: 0)
    }

    deinit { completedAt.deallocate() }

    var sink: @Sendable (WriterBatchResult) -> Void {
        { [self] batch in
            let time = now()
            var stored = 0
            for result in batch.results {
                if case .stored = result.outcome { stored += 1 }
                if Int(result.token) < completedAt.count { completedAt[Int(result.token)] = time }
            }
            lastResult.store(time, ordering: .relaxed)
            self.stored.add(stored, ordering: .releasing)
            other.add(batch.results.count - stored, ordering: .releasing)
        }
    }

    var done: Int { stored.load(ordering: .acquiring) + other.load(ordering: .acquiring) }
}

func configuration(_ url: String, _ options: Options) -> WriterConfiguration {
    WriterConfiguration(
        databaseURL: url, maxBatchMessages: options.batch, maxBatchDelayMilliseconds: options.delayMilliseconds,
        minBatchIntervalMicroseconds: options.intervalMicroseconds, splitMarkMessages: options.splitMark,
        pipelineDepth: options.depth,
        connections: options.connections)
}

/// With --notify: what a gateway on `cluster.bus = "postgres"` adds to each
/// batch (its notifications, sent after the commit by a bus connection of
/// its own), and another node's bus taking them.
final class Notifier: @unchecked Sendable {
    let publisher: PostgresBus
    let listener: PostgresBus
    let received = Atomic<Int>(0)

    init(_ url: String) throws {
        publisher = try PostgresBus(databaseURL: url, channel: "switchboard", node: "writer-bench")
        listener = try PostgresBus(databaseURL: url, channel: "switchboard", node: "other-node")
        let connected = Atomic<Int>(0)
        for bus in [publisher, listener] {
            bus.start(
                BusHandlers(
                    received: { [self] notification in
                        if case .committed(let messages, _) = notification.event {
                            self.received.add(messages.count, ordering: .relaxed)
                        }
                    }, connected: { _ in connected.add(1, ordering: .relaxed) }, disconnected: {}))
        }
        while connected.load(ordering: .relaxed) < 2 || publisher.peerCount < 1 { usleep(1000) }
    }

    /// The writer's sink: the batch's stored messages, as the gateway publishes them.
    func publish(_ batch: WriterBatchResult) {
        var messages: [ChatMessage] = []
        for result in batch.results {
            guard case .stored(let row) = result.outcome else { continue }
            messages.append(
                ChatMessage(
                    id: row.id, sessionID: row.sessionID, seq: row.seq, clientMessageID: row.clientMessageID,
                    kind: row.kind, body: row.body,
                    sender: Participant(id: row.senderID, role: row.senderRole, name: row.senderName),
                    createdAt: row.createdAt))
        }
        if !messages.isEmpty { publisher.publish(.committed(messages: messages, sessions: [])) }
    }

    func stop() {
        publisher.stop()
        listener.stop()
    }
}

func startWriter(_ url: String, _ options: Options, _ tally: Tally, _ notifier: Notifier? = nil) -> BatchWriter {
    let sink = tally.sink
    let writer = BatchWriter(configuration: configuration(url, options)) { batch in
        sink(batch)
        notifier?.publish(batch)
    }
    writer.start()
    while !writer.isConnected { usleep(1000) }
    return writer
}

/// Submits every command as fast as the writer takes them and waits for all
/// their results: the seconds to the last result, and PostgreSQL's CPU
/// meanwhile (a full queue is retried after 1 ms: the queues hold far more
/// than the writer stores in 1 ms, and a tighter retry loop only takes CPU
/// from PostgreSQL).
func storeAll(
    _ commands: [WriteCommand], _ writer: BatchWriter, _ tally: Tally
) -> (
    seconds: Double, cpuSeconds: Double
) {
    let cpuBefore = PostgresCPU.seconds()
    let started = now()
    for command in commands {
        while writer.submit(command) == .overloaded { usleep(1000) }
    }
    while tally.done < commands.count { usleep(1000) }
    let seconds = Double(tally.lastResult.load(ordering: .relaxed) - started) / 1e9
    return (seconds, PostgresCPU.seconds() - cpuBefore)
}

/// As fast as the writer takes them (`storeAll`).
/// The commands are built before the clock starts: what is measured is the
/// writer storing them, not the benchmark formatting strings (which, on this
/// 2-core machine, would take CPU from PostgreSQL; in the gateway that work
/// is the event loops' frame parsing, whatever the writer does).
func runBatched(_ url: String, _ options: Options) throws -> Double {
    let connection = try PostgresConnection(url)
    let (workspace, sessions) = try makeSessions(connection, count: options.sessions)
    if options.webhook { try subscribeToMessages(connection, workspace: workspace) }
    let commands = (0..<options.messages).map { index in
        WriteCommand(
            sessionID: sessions[index % sessions.count], clientMessageID: "batched-\(index)", senderRole: "visitor",
            senderID: "v-bench", senderName: nil, kind: "text", body: body(index), origin: 0, token: UInt64(index))
    }
    let tally = Tally(capacity: 0)
    let notifier = options.notify ? try Notifier(url) : nil
    let writer = startWriter(url, options, tally, notifier)
    let indexer = options.indexes ? AfterCommitLoop.search(url, writer: writer, share: options.searchShare) : nil
    let expander = options.webhook ? AfterCommitLoop.webhooks(url, writer: writer) : nil
    let started = now()
    let cpuBefore = PostgresCPU.seconds()
    let (seconds, cpuStored) = storeAll(commands, writer, tally)
    let searchable = try indexer.map { indexer in
        try indexer.drain(connection)
        try checkEveryMessageIndexed(connection, sessions: sessions)
        return Double(now() - started) / 1e9
    }
    let eventsMade = try expander.map { expander in
        try expander.drain(connection)
        return Double(now() - started) / 1e9
    }
    // Stored (and, with search, indexed; with --webhook, its events made): the database's CPU per
    // message, the indexer's and the expander's included.
    let cpuDone = PostgresCPU.seconds() - cpuBefore
    let statistics = writer.statistics
    writer.stop()
    usleep(500_000)
    notifier?.stop()
    let stored = tally.stored.load(ordering: .relaxed)
    guard stored == options.messages else { fatalError("only \(stored) of \(options.messages) stored") }
    let check = try connection.query(
        "SELECT count(*), count(DISTINCT (session_id, seq)), max(seq) FROM chats WHERE session_id = ANY ($1::uuid[])",
        ["{" + sessions.joined(separator: ",") + "}"])
    guard check.int(0, 0) == options.messages, check.int(0, 1) == options.messages else {
        fatalError("the database holds \(check.rows) for \(options.messages) messages")
    }
    let outbox = try outboxRows(connection, workspace: workspace)
    let expected = options.webhook ? options.messages : 0
    guard outbox.events == expected, outbox.deliveries == expected else {
        fatalError("the outbox holds \(outbox) for \(options.messages) messages (webhook: \(options.webhook))")
    }
    let rate = Double(options.messages) / seconds
    let meanBatch = Double(statistics.batchSize.sum) / Double(max(statistics.batchSize.count, 1))
    let meanCommit = Double(statistics.commitLatencyMicroseconds.sum) / Double(max(statistics.batchesCommitted, 1))
    report(
        "batched",
        [
            "messages": .int(options.messages), "seconds": rounded(seconds), "per_s": .int(Int(rate)),
            "batches": .int(statistics.batchesCommitted), "mean_batch": .int(Int(meanBatch.rounded())),
            "mean_commit_ms": rounded(meanCommit / 1000), "batch": .int(options.batch), "depth": .int(options.depth),
            "delay_ms": .int(options.delayMilliseconds), "interval_us": .int(options.intervalMicroseconds),
            "split_mark": .int(options.splitMark),
            "connections": .int(options.connections),
            "notify": .bool(options.notify),
            "notifications": .int(notifier?.publisher.sent.load(ordering: .relaxed) ?? 0),
            "notified_messages_received": .int(notifier?.received.load(ordering: .relaxed) ?? 0),
            "webhook": .bool(options.webhook), "webhook_events": .int(outbox.events),
            "search_index": .bool(options.searchIndex), "indexer": .bool(options.indexes),
            "search_share": options.indexes ? .int(options.searchShare) : .null,
            "pg_cpu_us_per_message_stored": rounded(cpuStored * 1e6 / Double(options.messages)),
            "pg_cpu_us_per_message_done": rounded(cpuDone * 1e6 / Double(options.messages)),
            "searchable_after_s": searchable.map { rounded($0 - seconds) } ?? .null,
            "searchable_per_s": searchable.map { .int(Int(Double(options.messages) / $0)) } ?? .null,
            "webhook_events_after_s": eventsMade.map { rounded($0 - seconds) } ?? .null,
        ])
    return rate
}

/// Open loop: message i is due at start + i/rate whatever happened before,
/// and its latency runs from when it was due (so a stall is not hidden by
/// submitting late) to its result.
func runLatency(_ url: String, _ options: Options) throws {
    let connection = try PostgresConnection(url)
    let (workspace, sessions) = try makeSessions(connection, count: options.sessions)
    if options.webhook { try subscribeToMessages(connection, workspace: workspace) }
    let warmup = options.rate  // one second, not counted
    let total = warmup + options.rate * options.seconds
    let tally = Tally(capacity: total)
    let notifier = options.notify ? try Notifier(url) : nil
    defer { notifier?.stop() }
    let writer = startWriter(url, options, tally, notifier)
    // The gateway indexes what it stores while it stores it.
    let indexer = options.indexes ? AfterCommitLoop.search(url, writer: writer, share: options.searchShare) : nil
    let expander = options.webhook ? AfterCommitLoop.webhooks(url, writer: writer) : nil
    let interval = 1e9 / Double(options.rate)
    let cpuBefore = PostgresCPU.seconds()
    let started = now()
    var refused = 0
    for index in 0..<total {
        let due = started + UInt64(Double(index) * interval)
        // Sleep, never spin: a spinning submitter takes a core from PostgreSQL
        // and inflates the very floor this measures. Messages that fall due
        // during a sleep go together when it ends, late by at most a tick,
        // which their latency (counted from `due`) includes.
        let current = now()
        if due > current { usleep(UInt32(max((due - current) / 1000, 250))) }
        let command = WriteCommand(
            sessionID: sessions[index % sessions.count], clientMessageID: "latency-\(index)", senderRole: "visitor",
            senderID: "v-bench", senderName: nil, kind: "text", body: body(index), origin: 0, token: UInt64(index))
        if writer.submit(command) != .accepted { refused += 1 }
    }
    while tally.done < total - refused { usleep(1000) }
    // PostgreSQL's CPU while the writer stored (warm-up included; the indexer's catching up after
    // the last commit not), and the batch size the offered rate made.
    let cpuStored = PostgresCPU.seconds() - cpuBefore
    let statistics = writer.statistics
    writer.stop()
    if let indexer {
        try indexer.drain(connection)
        try checkEveryMessageIndexed(connection, sessions: sessions)
    }
    try expander?.drain(connection)
    var latencies: [Double] = []
    latencies.reserveCapacity(total - warmup)
    for index in warmup..<total where tally.completedAt[index] != 0 {
        let due = started + UInt64(Double(index) * interval)
        latencies.append(Double(tally.completedAt[index] - due) / 1e6)
    }
    latencies.sort()
    func percentile(_ p: Double) -> Double { nearestRank(latencies, p) }
    report(
        "latency",
        [
            "offered_per_s": .int(options.rate), "seconds": .int(options.seconds), "measured": .int(latencies.count),
            "refused": .int(refused), "p50_ms": rounded(percentile(0.5)), "p90_ms": rounded(percentile(0.9)),
            "p99_ms": rounded(percentile(0.99)), "p999_ms": rounded(percentile(0.999)),
            "max_ms": rounded(latencies.last ?? 0), "notify": .bool(options.notify), "webhook": .bool(options.webhook),
            "search_index": .bool(options.searchIndex), "indexer": .bool(options.indexes),
            "batches": .int(statistics.batchesCommitted),
            "mean_batch": rounded(Double(statistics.batchSize.sum) / Double(max(statistics.batchSize.count, 1))),
            "pg_cpu_us_per_message": rounded(cpuStored * 1e6 / Double(max(total - refused, 1))),
            "delay_ms": .int(options.delayMilliseconds), "interval_us": .int(options.intervalMicroseconds),
            "split_mark": .int(options.splitMark),
        ])
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
let url = try prepareDatabase(options.databaseURL, searchIndex: options.searchIndex)
let settings = try PostgresConnection(url).query(
    """
    SELECT current_setting('server_version'), current_setting('fsync'), current_setting('synchronous_commit'),
           current_setting('full_page_writes'), current_setting('wal_sync_method'), current_setting('shared_buffers'),
           current_setting('max_wal_size')
    """)
report(
    "settings",
    [
        "server_version": .string(String(settings.string(0, 0)!.split(separator: " ")[0])),
        "fsync": .string(settings.string(0, 1)!), "synchronous_commit": .string(settings.string(0, 2)!),
        "full_page_writes": .string(settings.string(0, 3)!), "wal_sync_method": .string(settings.string(0, 4)!),
        "shared_buffers": .string(settings.string(0, 5)!), "max_wal_size": .string(settings.string(0, 6)!),
    ])
/// Each run starts from a vacuumed, analyzed database just checkpointed.
/// Otherwise the autovacuum the previous run's rows call for lands at a random
/// moment of the next run (200,000 inserts pass its insert threshold), and so
/// does a checkpoint (the naive run alone writes about 300 MB of WAL): its
/// writes and the full-page images every page then needs again made the
/// batched figure vary from 62,000 to 108,000 messages/s between runs. After
/// the checkpoint every run pays the same full-page images.
func settle(_ url: String) throws {
    let connection = try PostgresConnection(url)
    try connection.execute("VACUUM (ANALYZE) chats, chat_sessions, webhook_events, webhook_deliveries")
    try connection.execute("CHECKPOINT")
}

if options.only == "growth" {
    try settle(url)
    try GrowthRun(url: url, options: options).run()
    exit(0)
}
if options.only == "alternate" {
    try settle(url)
    try AlternatingSearch(url: url, options: options).run()
    exit(0)
}
var naive: Double?
if !options.skipNaive && options.only == nil {
    try settle(url)
    naive = try runNaive(url, options)
}
if options.only == nil || options.only == "batched" {
    try settle(url)
    let batched = try runBatched(url, options)
    if let naive { report("ratio", ["batched_over_naive": .double((batched / naive * 10).rounded() / 10)]) }
}
if options.only == nil || options.only == "latency" {
    try settle(url)
    try runLatency(url, options)
}
if options.only == nil || options.only == "floor" {
    try FloorRun(url: url, options: options).run()
}
