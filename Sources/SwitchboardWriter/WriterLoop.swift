import SwitchboardPostgres
import SwitchboardSystem

/// The writer's thread body: connect its lanes (one pipelined connection
/// each), then batch, send and collect results, waiting in poll() on the
/// queue's eventfd and every lane's socket; `LanePlan` decides which batch
/// goes on which lane. When a lane's connection is lost, every lane's
/// unresolved batches are failed and all of them reconnect with backoff.
///
/// Threading: everything here belongs to the writer's thread alone (it is
/// created by `BatchWriter.start` and handed to the new thread once, hence
/// @unchecked Sendable). It shares only `queue` (with submitters) and
/// `metrics`, both thread-safe.
final class WriterLoop: @unchecked Sendable {
    private let configuration: WriterConfiguration
    private let connectionEvents: @Sendable (WriterConnectionEvent) -> Void
    private let queue: SubmitQueue
    private let metrics: WriterMetrics
    private let sink: @Sendable (WriterBatchResult) -> Void
    private let plan: LanePlan

    /// Commands taken from the queue and not yet sent, by home lane.
    private var waiting: WaitingCommands
    /// What `queue.take` hands over, and the storage it reuses next time.
    private var arrived: [QueuedCommand] = []
    private var spareArrived: [QueuedCommand] = []
    /// Each lane's sent batches in the order the server answers them (at most pipelineDepth).
    private var inFlight: [[InFlightBatch]]
    /// What `plan` decides from: read from `waiting` and `inFlight` before
    /// each decision (`refreshState`), apart from each lane's last send.
    private var state: LanePlan.State
    private var encoder = BatchEncoder()
    private var batch: [QueuedCommand] = []

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
        configuration: WriterConfiguration, queue: SubmitQueue, metrics: WriterMetrics,
        connectionEvents: @escaping @Sendable (WriterConnectionEvent) -> Void,
        sink: @escaping @Sendable (WriterBatchResult) -> Void
    ) {
        self.configuration = configuration
        self.connectionEvents = connectionEvents
        self.queue = queue
        self.metrics = metrics
        self.sink = sink
        plan = LanePlan(configuration)
        waiting = WaitingCommands(lanes: configuration.connections)
        inFlight = Array(repeating: [], count: configuration.connections)
        state = LanePlan.State(lanes: configuration.connections)
    }

    private var lanes: Int { configuration.connections }

    func run() {
        var backoff = configuration.reconnectBackoffMinimumMilliseconds
        var connects = 0
        // Since the last working set of connections: failed attempts, the
        // last reason reported, and whether one was lost (each says what to
        // report next).
        var failedAttempts = 0
        var reportedReason: String?
        var lost = false
        while queue.status != .stopped {
            let connections: [PostgresConnection]
            switch connect() {
            case .failure(let failure):
                failUnresolved()
                failedAttempts += 1
                if failure.error.message != reportedReason {
                    reportedReason = failure.error.message
                    connectionEvents(.connectFailed(connection: failure.lane, reason: failure.error.message))
                }
                pause(milliseconds: backoff)
                backoff = min(backoff * 2, configuration.reconnectBackoffMaximumMilliseconds)
                continue
            case .success(let made):
                connections = made
            }
            if failedAttempts > 0 || lost {
                connectionEvents(.restored(failedAttempts: failedAttempts))
            }
            failedAttempts = 0
            reportedReason = nil
            lost = false
            if connects > 0 { metrics.recordReconnect() }
            connects += 1
            backoff = configuration.reconnectBackoffMinimumMilliseconds
            _ = queue.setStatus(.accepting)
            metrics.connected.store(true, ordering: .relaxed)
            let outcome = serve(connections)
            metrics.connected.store(false, ordering: .relaxed)
            failUnresolved()
            guard case .lost(let lane, let error) = outcome else { break }
            lost = true
            connectionEvents(.lost(connection: lane, reason: error.message))
            pause(milliseconds: backoff)
        }
        failUnresolved()
    }

    private struct ConnectFailure: Error {
        var lane: Int
        var error: PostgresError
    }

    /// Every lane's connection, or the first lane's failure (the ones
    /// already made are closed with their objects).
    private func connect() -> Result<[PostgresConnection], ConnectFailure> {
        var made: [PostgresConnection] = []
        for lane in 0..<lanes {
            do throws(PostgresError) {
                let connection = try PostgresConnection(configuration.databaseURL)
                try connection.execute(Self.sessionSettings)
                try connection.prepare(Self.batchStatementName, BatchEncoder.statement)
                try connection.enterPipelineMode()
                made.append(connection)
            } catch {
                return .failure(ConnectFailure(lane: lane, error: error))
            }
        }
        return .success(made)
    }

    private enum ServeOutcome {
        case stopped
        case lost(lane: Int?, PostgresError)
    }

    /// A lane's connection broke; `lane` nil: the thread's wait on all of them failed.
    private struct LaneLost: Error {
        var lane: Int?
        var error: PostgresError
    }

    /// Runs the lanes' connections until one is lost or the writer stops.
    private func serve(_ connections: [PostgresConnection]) -> ServeOutcome {
        // Descriptor 0 is the queue's wake-up, descriptor 1 + lane each lane's socket.
        var fds = PollSet([queue.wakeup.fd] + connections.map(\.socket))
        var wantsWrite = Array(repeating: false, count: lanes)
        var stopDeadline: UInt64?
        do throws(LaneLost) {
            while true {
                queue.drainWakeups()
                let status = queue.take(into: &arrived, spare: &spareArrived)
                waiting.add(&arrived)
                let now = MonotonicClock.nanoseconds()
                if status == .stopped && stopDeadline == nil {
                    // Nothing new is sent once stopping; what waits is failed now.
                    stopDeadline = now + Self.stopGraceNanoseconds
                    failPending()
                }
                refreshState()
                if let stopDeadline, inFlight.allSatisfy(\.isEmpty) || now >= stopDeadline { return .stopped }

                var sent = LaneSet()
                while let next = plan.next(state, now: now, stopping: stopDeadline != nil) {
                    try send(next, on: connections[next.lane], at: now)
                    sent.insert(next.lane)
                    refreshState()
                }
                for lane in 0..<lanes where sent.contains(lane) || wantsWrite[lane] {
                    wantsWrite[lane] = try flush(connections[lane], lane: lane)
                }
                // Arrivals while this thread held commands sent no wake-up; if it
                // now holds none, take them before sleeping without a deadline.
                if state.waiting == 0 && stopDeadline == nil && queue.hasIncoming { continue }

                for lane in 0..<lanes {
                    fds.watch(1 + lane, for: wantsWrite[lane] ? [.readable, .writable] : .readable)
                }
                let timeout = plan.pollTimeout(state, now: now, stopDeadline: stopDeadline)
                let ready: Int
                do {
                    ready = try fds.wait(timeoutNanoseconds: timeout)
                } catch {
                    throw LaneLost(
                        lane: nil,
                        error: PostgresError(kind: .connection, message: "waiting on the connections failed: \(error)"))
                }
                guard ready > 0 else { continue }
                for lane in 0..<lanes {
                    let events = fds.ready(1 + lane)
                    if events.contains(.writable) { wantsWrite[lane] = try flush(connections[lane], lane: lane) }
                    if !events.isDisjoint(with: [.readable, .failed]) {
                        try collectResults(from: connections[lane], lane: lane)
                    }
                }
            }
        } catch {
            return .lost(lane: error.lane, error.error)
        }
    }

    /// Whether the lane still has bytes to write.
    private func flush(_ connection: PostgresConnection, lane: Int) throws(LaneLost) -> Bool {
        do throws(PostgresError) {
            return try !connection.flush()
        } catch {
            throw LaneLost(lane: lane, error: error)
        }
    }

    /// Reads the plan's view from what the thread holds: the waiting
    /// commands by home lane, the batches on the wire by lane, and the home
    /// lanes that lane 0's batches hold (at most `pipelineDepth` batches).
    private func refreshState() {
        for lane in 0..<lanes {
            state.pending[lane] = waiting.count(lane)
            state.oldestAcceptedAt[lane] = waiting.oldestAcceptedAt(lane)
            state.inFlight[lane] = inFlight[lane].count
        }
        state.heldByLaneZero = []
        for batch in inFlight[0] { state.heldByLaneZero.formUnion(batch.heldHomes) }
    }

    /// Sends the oldest waiting commands of the batch's home lanes (up to a
    /// full batch) as one statement on its lane.
    private func send(_ planned: LanePlan.Batch, on connection: PostgresConnection, at now: UInt64) throws(LaneLost) {
        batch.removeAll(keepingCapacity: true)
        let taken = waiting.take(from: planned.homes, upTo: configuration.maxBatchMessages, into: &batch)
        encoder.encode(batch[...])
        // Lane 0's batch holding other lanes' sessions keeps those lanes from
        // sending them; a home the full batch left out is not held.
        let held = planned.lane == 0 ? taken.removing(0) : []
        // In flight before sending: if the send fails, the loss handling answers it.
        inFlight[planned.lane].append(InFlightBatch(commands: batch, sentAt: now, heldHomes: held))
        state.lastSentAt[planned.lane] = now
        metrics.batchesInFlight.add(1, ordering: .relaxed)
        if planned.lane == 0 {
            metrics.batchesSentOnFirst.add(1, ordering: .relaxed)
        } else {
            metrics.batchesSentOnOthers.add(1, ordering: .relaxed)
        }
        queue.markSent(batch.count)
        do throws(PostgresError) {
            try connection.sendPrepared(Self.batchStatementName, encoder.parameters)
        } catch {
            throw LaneLost(lane: planned.lane, error: error)
        }
    }

    /// Handles every pipeline event of the lane that has fully arrived. A
    /// batch's outcome is final only at its sync: the implicit transaction
    /// commits there, so `.stored` is never reported before the commit.
    private func collectResults(from connection: PostgresConnection, lane: Int) throws(LaneLost) {
        do throws(PostgresError) {
            try connection.consumeInput()
            while let event = connection.nextPipelineEvent() {
                guard !inFlight[lane].isEmpty else {
                    throw PostgresError(kind: .connection, message: "a pipeline event arrived with nothing in flight")
                }
                switch event {
                case .result(let result):
                    inFlight[lane][0].result = result
                case .failure(let error):
                    if error.isConnectionLoss { throw error }
                    inFlight[lane][0].error = error
                case .sync:
                    let batch = resolve(lane: lane)
                    complete(batch)
                }
            }
        } catch {
            throw LaneLost(lane: lane, error: error)
        }
    }

    /// Removes the lane's oldest batch from what is on the wire.
    private func resolve(lane: Int) -> InFlightBatch {
        metrics.batchesInFlight.subtract(1, ordering: .relaxed)
        return inFlight[lane].removeFirst()
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
        let held = waiting.removeAll()
        queue.forget(held.count)
        var failed = InFlightBatch.results(held, .unavailable)
        failed.append(contentsOf: InFlightBatch.results(queued, .unavailable))
        if failed.isEmpty { return }
        metrics.recordUnavailable(failed.count)
        sink(WriterBatchResult(results: failed))
    }

    /// After a lost connection: batches in flight may or may not have
    /// committed, so they are answered `.unavailable` (a retry with the same
    /// client_msg_id is safe); so is everything waiting.
    private func failUnresolved() {
        for lane in 0..<lanes {
            while !inFlight[lane].isEmpty {
                let batch = resolve(lane: lane)
                metrics.recordUnavailable(batch.commands.count)
                sink(WriterBatchResult(results: InFlightBatch.results(batch.commands, .unavailable)))
            }
        }
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
