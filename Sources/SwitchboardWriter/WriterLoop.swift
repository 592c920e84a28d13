import SwitchboardPostgres
import SwitchboardSystem

/// One shard's thread body: connect, then batch, send, and collect results
/// on one pipelined connection, waiting in poll() on the database socket and
/// the shard's submit queue's eventfd; on a lost connection fail what is
/// unresolved and reconnect with backoff. Shards share nothing but `metrics`
/// and, when configured, the turns of their partial batches (`CommitTurns`).
///
/// Threading: everything here belongs to the shard's thread alone (it is
/// created by `BatchWriter.start` and handed to the new thread once, hence
/// @unchecked Sendable). It shares only `queue` (with submitters), `metrics`
/// and `turns` (with the other shards), all thread-safe.
final class WriterLoop: @unchecked Sendable {
    private let configuration: WriterConfiguration
    private let shard: Int
    private let connectionEvents: @Sendable (WriterConnectionEvent) -> Void
    private let queue: SubmitQueue
    private let metrics: WriterMetrics
    private let sink: @Sendable (WriterBatchResult) -> Void
    private let schedule: BatchSchedule
    /// Shared with the other shards (nil: one shard, or turns off).
    private let turns: CommitTurns?
    /// When a due partial batch may go even if another shard's still holds
    /// the turn (nil: not waiting for the turn).
    private var turnDeadline: UInt64?

    /// Commands taken from the queue and not yet sent; `pending[pendingStart...]`.
    private var pending: [QueuedCommand] = []
    private var pendingStart = 0
    private var spare: [QueuedCommand] = []
    /// Sent batches in the order the server answers them (at most pipelineDepth).
    private var inFlight: [InFlightBatch] = []
    private var encoder = BatchEncoder()
    /// When this shard last sent a batch (0: never), for the minimum interval.
    private var lastSentAt: UInt64 = 0

    /// Run once on each new connection. An ack promises durability: never let
    /// a server default of synchronous_commit=off weaken it (stricter settings
    /// are kept). Generic plans, with bitmap and sequential scans off, keep
    /// every statement of the writer reaching sessions and messages by key at
    /// any table size (docs/writer.md, "Generic plans", has the measurements);
    /// never compiled to machine code, which a plan left with a scan turned off
    /// would be on every batch (migration 35).
    static let sessionSettings = """
        SET application_name = 'switchboard-writer';
        SET plan_cache_mode = force_generic_plan;
        SET enable_bitmapscan = off;
        SET enable_seqscan = off;
        SET jit = off;
        SELECT set_config('synchronous_commit', 'on', false)
         WHERE current_setting('synchronous_commit') = 'off'
        """

    /// The batch statement, prepared once per connection: parsing, analysing
    /// and planning it again for every batch cost the server about an eighth
    /// of its time per small batch (docs/writer.md, "A batch").
    static let batchStatementName = "switchboard_append_batch"

    /// How long `stop` waits for batches already sent before calling them unavailable.
    private static let stopGraceNanoseconds: UInt64 = 2_000_000_000

    init(
        configuration: WriterConfiguration, shard: Int, queue: SubmitQueue, metrics: WriterMetrics,
        turns: CommitTurns?, connectionEvents: @escaping @Sendable (WriterConnectionEvent) -> Void,
        sink: @escaping @Sendable (WriterBatchResult) -> Void
    ) {
        self.configuration = configuration
        self.shard = shard
        self.connectionEvents = connectionEvents
        self.queue = queue
        self.metrics = metrics
        self.sink = sink
        self.turns = turns
        schedule = BatchSchedule(configuration)
    }

    private var pendingCount: Int { pending.count - pendingStart }
    /// When the oldest pending command was accepted (0 with none pending).
    private var oldestAcceptedAt: UInt64 { pendingCount > 0 ? pending[pendingStart].acceptedAt : 0 }

    func run() {
        var backoff = configuration.reconnectBackoffMinimumMilliseconds
        var connections = 0
        // Since the last working connection: failed attempts, the last reason
        // reported, and whether one was lost (each says what to report next).
        var failedAttempts = 0
        var reportedReason: String?
        var lost = false
        while queue.status != .stopped {
            let connection: PostgresConnection
            switch connect() {
            case .failure(let error):
                failUnresolved()
                failedAttempts += 1
                if error.message != reportedReason {
                    reportedReason = error.message
                    connectionEvents(.connectFailed(shard: shard, reason: error.message))
                }
                pause(milliseconds: backoff)
                backoff = min(backoff * 2, configuration.reconnectBackoffMaximumMilliseconds)
                continue
            case .success(let made):
                connection = made
            }
            if failedAttempts > 0 || lost {
                connectionEvents(.restored(shard: shard, failedAttempts: failedAttempts))
            }
            failedAttempts = 0
            reportedReason = nil
            lost = false
            if connections > 0 { metrics.recordReconnect() }
            connections += 1
            backoff = configuration.reconnectBackoffMinimumMilliseconds
            _ = queue.setStatus(.accepting)
            metrics.connectedShards.add(1, ordering: .relaxed)
            let outcome = serve(connection)
            metrics.connectedShards.subtract(1, ordering: .relaxed)
            failUnresolved()
            guard case .lost(let error) = outcome else { break }
            lost = true
            connectionEvents(.lost(shard: shard, reason: error.message))
            pause(milliseconds: backoff)
        }
        failUnresolved()
    }

    private func connect() -> Result<PostgresConnection, PostgresError> {
        do throws(PostgresError) {
            let connection = try PostgresConnection(configuration.databaseURL)
            try connection.execute(Self.sessionSettings)
            try connection.prepare(Self.batchStatementName, BatchEncoder.statement)
            try connection.enterPipelineMode()
            return .success(connection)
        } catch {
            return .failure(error)
        }
    }

    private enum ServeOutcome {
        case stopped
        case lost(PostgresError)
    }

    /// Runs one connection until it is lost or the writer stops.
    private func serve(_ connection: PostgresConnection) -> ServeOutcome {
        var fds = PollSet([queue.wakeup.fd, connection.socket])
        var wantsWrite = false
        var stopDeadline: UInt64?
        do {
            while true {
                queue.drainWakeups()
                let status = queue.take(into: &pending, spare: &spare)
                let now = MonotonicClock.nanoseconds()
                if status == .stopped && stopDeadline == nil {
                    // Nothing new is sent once stopping; what waits is failed now.
                    stopDeadline = now + Self.stopGraceNanoseconds
                    failPending()
                }
                if let stopDeadline, inFlight.isEmpty || now >= stopDeadline { return .stopped }

                var sent = false
                while schedule.sendsNow(
                    pending: pendingCount, oldestAcceptedAt: oldestAcceptedAt, lastSentAt: lastSentAt,
                    inFlight: inFlight.count, now: now, stopping: stopDeadline != nil)
                {
                    let partial = pendingCount < configuration.maxBatchMessages
                    guard !partial || takesTurn(at: now) else { break }
                    try send(on: connection, at: now, holdsTurn: partial && turns != nil)
                    sent = true
                }
                if turnDeadline != nil && pendingCount == 0 { withdrawFromTurn() }
                if sent || wantsWrite { wantsWrite = try !connection.flush() }
                // Arrivals while this thread held commands sent no wake-up; if it
                // now holds none, take them before sleeping without a deadline.
                if pendingCount == 0 && stopDeadline == nil && queue.hasIncoming { continue }

                fds.watch(1, for: wantsWrite ? [.readable, .writable] : .readable)
                var timeout = schedule.pollTimeout(
                    pending: pendingCount, oldestAcceptedAt: oldestAcceptedAt, lastSentAt: lastSentAt,
                    inFlight: inFlight.count, now: now, stopDeadline: stopDeadline)
                // The schedule's deadline for the due batch has passed; the
                // turn's release wakes this thread sooner, its limit at the latest.
                if let turnDeadline, stopDeadline == nil { timeout = turnDeadline > now ? turnDeadline - now : 0 }
                guard try fds.wait(timeoutNanoseconds: timeout) > 0 else { continue }
                if fds.ready(1).contains(.writable) { wantsWrite = try !connection.flush() }
                if !fds.ready(1).isDisjoint(with: [.readable, .failed]) {
                    try connection.consumeInput()
                    try collectResults(from: connection)
                }
            }
        } catch let error as PostgresError {
            return .lost(error)
        } catch {
            return .lost(PostgresError(kind: .connection, message: "\(error)"))
        }
    }

    /// Whether this shard's due partial batch may go now (always, without
    /// turns); if not, `turnDeadline` says until when it waits at most.
    private func takesTurn(at now: UInt64) -> Bool {
        guard let turns else { return true }
        switch turns.request(shard: shard, now: now) {
        case .go:
            if let waitedUntil = turnDeadline { metrics.recordTurnWait(endedByLimit: now >= waitedUntil) }
            turnDeadline = nil
            return true
        case .wait(let until):
            turnDeadline = until
            return false
        }
    }

    private func withdrawFromTurn() {
        turnDeadline = nil
        turns?.withdraw(shard: shard)
    }

    /// Sends the oldest pending commands (up to a batch) as one statement.
    private func send(on connection: PostgresConnection, at now: UInt64, holdsTurn: Bool) throws(PostgresError) {
        let count = min(pendingCount, configuration.maxBatchMessages)
        let slice = pending[pendingStart..<(pendingStart + count)]
        encoder.encode(slice)
        // In flight before sending: if the send fails, the loss handling answers it.
        inFlight.append(InFlightBatch(commands: Array(slice), sentAt: now, holdsTurn: holdsTurn))
        lastSentAt = now
        metrics.batchesInFlight.add(1, ordering: .relaxed)
        pendingStart += count
        if pendingStart == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
        } else if pendingStart >= 4096 && pendingStart * 2 >= pending.count {
            pending.removeFirst(pendingStart)
            pendingStart = 0
        }
        queue.markSent(count)
        try connection.sendPrepared(Self.batchStatementName, encoder.parameters)
    }

    /// Handles every pipeline event that has fully arrived. A batch's outcome
    /// is final only at its sync: the implicit transaction commits there, so
    /// `.stored` is never reported before the commit.
    private func collectResults(from connection: PostgresConnection) throws(PostgresError) {
        while let event = connection.nextPipelineEvent() {
            guard !inFlight.isEmpty else {
                throw PostgresError(kind: .connection, message: "a pipeline event arrived with nothing in flight")
            }
            switch event {
            case .result(let result):
                inFlight[0].result = result
            case .failure(let error):
                if error.isConnectionLoss { throw error }
                inFlight[0].error = error
            case .sync:
                metrics.batchesInFlight.subtract(1, ordering: .relaxed)
                let batch = inFlight.removeFirst()
                if batch.holdsTurn { turns?.release(shard: shard) }
                complete(batch)
            }
        }
    }

    private func complete(_ batch: InFlightBatch) {
        let results: [WriteResult]
        var events: [StoredMessage] = []
        var webhookBacklog = 0
        var committedAfter: Int?
        let finishedAt = MonotonicClock.nanoseconds()
        if let error = batch.error {
            results = InFlightBatch.results(batch.commands, .failed(error.description))
            metrics.recordFailed(batch.commands.count)
        } else if let result = batch.result {
            let decoded = InFlightBatch.decode(result, commands: batch.commands)
            let latency = Int((finishedAt - batch.sentAt) / 1000)
            committedAfter = latency
            metrics.recordCommitted(
                size: batch.commands.count, latencyMicroseconds: latency, stored: decoded.stored,
                duplicates: decoded.duplicates, noSession: decoded.noSession, badAttachments: decoded.badAttachments)
            let failed =
                batch.commands.count - decoded.stored - decoded.duplicates - decoded.noSession
                - decoded.badAttachments
            if failed > 0 { metrics.recordFailed(failed) }
            results = decoded.results
            events = decoded.events
            webhookBacklog = decoded.webhookBacklog
        } else {
            results = InFlightBatch.results(batch.commands, .failed("the server sent no result for the batch"))
            metrics.recordFailed(batch.commands.count)
        }
        sink(
            WriterBatchResult(
                results: results, events: events, commitLatencyMicroseconds: committedAfter, sentAt: batch.sentAt,
                finishedAt: finishedAt, webhookBacklog: webhookBacklog
            ))
    }

    /// Answers `.unavailable` to every command not yet sent.
    private func failPending() {
        let queued = queue.setStatus(.unavailable)
        var failed = InFlightBatch.results(pending[pendingStart...], .unavailable)
        queue.forget(pendingCount)
        pending.removeAll(keepingCapacity: true)
        pendingStart = 0
        failed.append(contentsOf: InFlightBatch.results(queued, .unavailable))
        if failed.isEmpty { return }
        metrics.recordUnavailable(failed.count)
        sink(WriterBatchResult(results: failed))
    }

    /// After a lost connection: batches in flight may or may not have
    /// committed, so they are answered `.unavailable` (a retry with the same
    /// client_msg_id is safe); so is everything waiting.
    private func failUnresolved() {
        withdrawFromTurn()
        for batch in inFlight {
            if batch.holdsTurn { turns?.release(shard: shard) }
            metrics.recordUnavailable(batch.commands.count)
            sink(WriterBatchResult(results: InFlightBatch.results(batch.commands, .unavailable)))
        }
        metrics.batchesInFlight.subtract(inFlight.count, ordering: .relaxed)
        inFlight.removeAll()
        failPending()
    }

    /// Sleeps for the reconnect backoff, waking early when the writer stops.
    private func pause(milliseconds: Int) {
        let deadline = MonotonicClock.nanoseconds() + UInt64(milliseconds) * 1_000_000
        while queue.status != .stopped {
            let now = MonotonicClock.nanoseconds()
            if now >= deadline { return }
            var wakeup = PollSet([queue.wakeup.fd])
            _ = try? wakeup.wait(timeoutMilliseconds: Int32((deadline - now + 999_999) / 1_000_000))
            queue.drainWakeups()
        }
    }
}
