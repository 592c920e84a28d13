import SwitchboardPostgres
import SwitchboardSystem
import SwitchboardWebhooks
import Synchronization

/// The dispatcher's `DeliveryQueue` on the outbox's tables: claims with
/// `FOR UPDATE SKIP LOCKED` under a lease, so that every node can dispatch
/// and no two hold one delivery at once; records each attempt.
///
/// Blocking by design: only dispatcher threads call it. Each call takes a
/// connection of its own from a small pool (one per caller that ever ran at
/// once), so dispatcher threads never wait for one another's round trips.
public final class PostgresDeliveryQueue: DeliveryQueue {
    private let databaseURL: String
    private let disableAfterHours: Int
    private let idle = Mutex(Idle())
    private let position: Mutex<ClaimPosition>
    /// When claims last looked for handoffs whose lease has ended (monotonic
    /// seconds), and how often they do.
    private let recovered = Mutex<Double>(-.infinity)
    private let recoverySeconds: Double

    /// Connections not in use. A `ChatQueries` is used by one thread at a
    /// time: taken out under the lock, put back when its call ends.
    private struct Idle: @unchecked Sendable {
        var queries: [ChatQueries] = []
    }

    /// `disableAfterHours`: `webhooks.disable_after_hours`, how long an
    /// endpoint may keep failing before it is disabled.
    ///
    /// `rescanSeconds`: how often, at least, a claim starts from the due
    /// index's front rather than after the last claim (`ClaimPosition`).
    ///
    /// `recoverySeconds`: how often, at most, a claim first writes due the
    /// deliveries of handoffs whose lease has ended (their holder died).
    public init(databaseURL: String, disableAfterHours: Int, rescanSeconds: Double = 1, recoverySeconds: Double = 1) {
        self.databaseURL = databaseURL
        self.disableAfterHours = disableAfterHours
        position = Mutex(ClaimPosition(rescanSeconds: rescanSeconds))
        self.recoverySeconds = recoverySeconds
    }

    public func claim(limit: Int, leaseSeconds: Int, skipping busy: Set<String>) throws -> [DueDelivery] {
        guard limit > 0 else { return [] }
        try recoverHandoffsNow()
        let after = position.withLock { $0.start(now: Double(MonotonicClock.nanoseconds()) / 1e9) }
        let result: PostgresResult
        do {
            result = try withQueries { queries throws(QueryError) in
                // Not retried after a lost connection: a claim that committed holds its rows until
                // the lease ends, and a second would lease others meanwhile.
                try queries.run(
                    prepared: "webhook_claim", Self.claimStatement,
                    [
                        String(limit), String(leaseSeconds), "{" + busy.sorted().joined(separator: ",") + "}",
                        after.map { String($0.dueMicros) }, after.map { String($0.id) },
                    ],
                    retryable: false)
            }
        } catch {
            position.withLock { $0.forget() }
            throw error
        }
        var due: [DueDelivery] = []
        due.reserveCapacity(result.rowCount)
        var last: ClaimPosition.Key?
        for row in 0..<result.rowCount {
            let key = ClaimPosition.Key(
                dueMicros: try RowDecoding.int64(result, row, 9), id: try RowDecoding.int64(result, row, 0))
            if last.map({ $0 < key }) ?? true { last = key }
            var secrets = [try RowDecoding.required(result, row, 4)]
            if let previous = result.string(row, 5) { secrets.append(previous) }
            due.append(
                DueDelivery(
                    id: try RowDecoding.required(result, row, 0), eventID: try RowDecoding.required(result, row, 1),
                    endpointID: try RowDecoding.required(result, row, 2), url: try RowDecoding.required(result, row, 3),
                    secrets: secrets, body: try RowDecoding.required(result, row, 6),
                    attempt: Int(try RowDecoding.int64(result, row, 7)),
                    eventCreatedAt: try RowDecoding.double(result, row, 8) ?? 0))
        }
        position.withLock { $0.claimed(last, full: due.count == limit) }
        return due
    }

    public func record(_ outcomes: [DeliveryOutcome]) throws {
        guard !outcomes.isEmpty else { return }
        // A retry due already (a schedule scaled down below the time since the position's claim)
        // may lie behind the position: the next claim starts from the front.
        let now = Double(UnixClock.nowMicroseconds()) / 1e6
        if outcomes.contains(where: { !$0.succeeded && ($0.nextAttemptAt ?? .infinity) <= now + 1 }) {
            position.withLock { $0.forget() }
        }
        _ = try withQueries { queries throws(QueryError) in
            // Retryable: it writes the same state again.
            try queries.run(
                prepared: "webhook_record", Self.recordStatement,
                [
                    RowDecoding.textArray(outcomes.map(\.deliveryID)),
                    RowDecoding.textArray(outcomes.map(\.endpointID)),
                    RowDecoding.textArray(outcomes.map { $0.succeeded ? "true" : "false" }),
                    RowDecoding.textArray(outcomes.map { $0.statusCode.map(String.init) }),
                    RowDecoding.textArray(outcomes.map { String($0.durationMilliseconds) }),
                    RowDecoding.textArray(outcomes.map(\.error)),
                    RowDecoding.textArray(outcomes.map(\.responseHead)),
                    RowDecoding.textArray(outcomes.map { $0.nextAttemptAt.map { String($0) } }),
                    String(disableAfterHours), RowDecoding.textArray(outcomes.map(\.handoffID)),
                    RowDecoding.textArray(outcomes.map(\.eventID)),
                ], retryable: true)
        }
    }

    public func release(_ deliveries: [DueDelivery]) throws {
        guard !deliveries.isEmpty else { return }
        // Due again at once, perhaps behind the position: the next claim starts from the front.
        position.withLock { $0.forget() }
        let claimed = deliveries.filter { $0.handoffID == nil }
        let handed = deliveries.filter { $0.handoffID != nil }
        if !claimed.isEmpty {
            _ = try withQueries { queries throws(QueryError) in
                // Retryable: a second run finds the leases ended and changes nothing.
                try queries.run(
                    Self.releaseStatement,
                    [RowDecoding.textArray(claimed.map(\.id)), RowDecoding.textArray(claimed.map(\.endpointID))],
                    retryable: true)
            }
        }
        if !handed.isEmpty {
            _ = try withQueries { queries throws(QueryError) in
                // Retryable: a second run finds the rows written and writes nothing.
                try queries.run(
                    prepared: "webhook_give_back", Self.giveBackStatement,
                    [
                        RowDecoding.textArray(handed.map(\.handoffID)), RowDecoding.textArray(handed.map(\.id)),
                        RowDecoding.textArray(handed.map(\.endpointID)), RowDecoding.textArray(handed.map(\.eventID)),
                    ], retryable: true)
            }
        }
    }

    /// Writes due the deliveries of handoffs whose lease has ended (a holder
    /// that died: this node's previous process, or another node), at most
    /// every `recoverySeconds`, so that the claim that follows can take them.
    /// Returns how many it wrote (0 when it was not yet time).
    @discardableResult
    public func recoverHandoffsNow() throws -> Int {
        let now = Double(MonotonicClock.nanoseconds()) / 1e9
        let due = recovered.withLock { last in
            guard now - last >= recoverySeconds else { return false }
            last = now
            return true
        }
        guard due else { return 0 }
        let result = try withQueries { queries throws(QueryError) in
            // Retryable: what a lost run wrote is written once (its handoffs are gone).
            try queries.run(
                prepared: "webhook_recover_handoffs", "SELECT switchboard_webhook_recover_handoffs($1::int)",
                [String(Self.handoffsPerRecovery)], retryable: true)
        }
        let written = Int(try RowDecoding.int64(result, 0, 0))
        // Due now, behind the position perhaps.
        if written > 0 { position.withLock { $0.forget() } }
        return written
    }

    /// Handoffs one recovery takes at most (each up to an endpoint's share of deliveries).
    static let handoffsPerRecovery = 64

    private func withQueries(
        _ body: (ChatQueries) throws(QueryError) -> PostgresResult
    ) throws(QueryError)
        -> PostgresResult
    {
        // Claims and records do not wait for the disk: one lost in a crash sends its delivery again.
        let queries =
            idle.withLock { $0.queries.popLast() }
            ?? ChatQueries(databaseURL: databaseURL, waitsForDisk: false, role: .webhookDispatcher)
        defer { idle.withLock { $0.queries.append(queries) } }
        return try body(queries)
    }

    /// Up to $1 due deliveries, leased for $2 seconds, skipping the endpoints
    /// in $3, after the due index's position ($4, $5) or from its front
    /// (NULLs): migration 24's `switchboard_webhook_claim`, which reads the
    /// due index in order whatever the statistics say.
    static let claimStatement = """
        SELECT id, event_id, endpoint_id, url, secret, previous_secret, body, attempt, created_at, due_us
          FROM switchboard_webhook_claim($1::int, $2::int, $3::uuid[], $4::bigint, $5::bigint)
        """

    /// Deliveries $1 of endpoints $2, held and never attempted: due now (a
    /// handed-over one was due at its lease's end), not leased, and the
    /// attempt their claim or hand-over counted taken back. Only while the
    /// lease lasts: once it has ended the delivery may be another claimer's,
    /// and the attempt stays counted (as after a node that died holding it).
    static let releaseStatement = """
        UPDATE webhook_deliveries d
           SET leased_until = NULL, attempts = d.attempts - 1, next_attempt_at = least(d.next_attempt_at, now()),
               updated_at = now()
          FROM unnest($1::bigint[], $2::uuid[]) AS r(id, endpoint_id)
         WHERE d.endpoint_id = r.endpoint_id AND d.id = r.id
           AND d.status = 'pending' AND d.leased_until > now() AND d.attempts > 0
        """

    /// Attempts' outcomes, one per element of the arrays: delivery $1 of
    /// endpoint $2, $3 succeeded, HTTP status $4, $5 ms, error $6, the
    /// response's first bytes $7, the next attempt at $8 (epoch seconds), an
    /// endpoint failing for longer than $9 hours disabled; an outcome with
    /// handoff $10 (not NULL) is of a delivery handed over at birth, of event
    /// $11, whose row is written now: migration 39's
    /// `switchboard_webhook_record` (migration 30's before it), which finds
    /// each delivery and handoff by its key whatever the statistics say, so
    /// that the statement can stay prepared.
    static let recordStatement = """
        SELECT switchboard_webhook_record($1::bigint[], $2::uuid[], $3::boolean[], $4::int[], $5::int[], $6::text[],
                                          $7::text[], $8::float8[], $9::int, $10::bigint[], $11::text[])
        """

    /// Deliveries $2 of endpoints $3, events $4, handed over in handoffs $1
    /// and never attempted: written due now while the lease lasts
    /// (migration 39's `switchboard_webhook_give_back`).
    static let giveBackStatement = """
        SELECT switchboard_webhook_give_back($1::bigint[], $2::bigint[], $3::uuid[], $4::text[])
        """
}
