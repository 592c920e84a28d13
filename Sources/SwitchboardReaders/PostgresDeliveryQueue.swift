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
    public init(databaseURL: String, disableAfterHours: Int, rescanSeconds: Double = 1) {
        self.databaseURL = databaseURL
        self.disableAfterHours = disableAfterHours
        position = Mutex(ClaimPosition(rescanSeconds: rescanSeconds))
    }

    public func claim(limit: Int, leaseSeconds: Int, skipping busy: Set<String>) throws -> [DueDelivery] {
        guard limit > 0 else { return [] }
        let after = position.withLock { $0.start(now: Double(MonotonicClock.nanoseconds()) / 1e9) }
        let result: PostgresResult
        do {
            result = try withQueries { queries throws(QueryError) in
                // Not retried after a lost connection: a claim that committed holds its rows until
                // the lease ends, and a second would lease others meanwhile.
                try queries.run(
                    Self.claimStatement,
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
                Self.recordStatement,
                [
                    RowDecoding.textArray(outcomes.map(\.deliveryID)),
                    RowDecoding.textArray(outcomes.map(\.endpointID)),
                    RowDecoding.textArray(outcomes.map { $0.succeeded ? "true" : "false" }),
                    RowDecoding.textArray(outcomes.map { $0.statusCode.map(String.init) }),
                    RowDecoding.textArray(outcomes.map { String($0.durationMilliseconds) }),
                    RowDecoding.textArray(outcomes.map(\.error)),
                    RowDecoding.textArray(outcomes.map(\.responseHead)),
                    RowDecoding.textArray(outcomes.map { $0.nextAttemptAt.map { String($0) } }),
                    String(disableAfterHours),
                ], retryable: true)
        }
    }

    public func release(_ deliveries: [DueDelivery]) throws {
        guard !deliveries.isEmpty else { return }
        // Due again at once, perhaps behind the position: the next claim starts from the front.
        position.withLock { $0.forget() }
        _ = try withQueries { queries throws(QueryError) in
            // Retryable: a second run finds the leases ended and changes nothing.
            try queries.run(
                Self.releaseStatement,
                [RowDecoding.textArray(deliveries.map(\.id)), RowDecoding.textArray(deliveries.map(\.endpointID))],
                retryable: true)
        }
    }

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
    /// response's first bytes $7, the next attempt at $8 (epoch seconds).
    /// Success: `succeeded`. Failure: due again at $8 or, without one,
    /// `failed`. A late failure never undoes a success (a lease that ran out
    /// while the first attempt hung, and a second attempt that succeeded).
    ///
    /// Each endpoint of the batch is then written once, and only when its
    /// state changes (deliveries to one endpoint finish on many threads, and
    /// would otherwise queue on its row lock): any success in the batch ends
    /// its failure; only failures start one, and an endpoint failing for
    /// longer than $9 hours is disabled.
    static let recordStatement = """
        WITH o AS (
            SELECT * FROM unnest($1::bigint[], $2::uuid[], $3::boolean[], $4::int[], $5::int[], $6::text[],
                                 $7::text[], $8::float8[])
                AS o(id, endpoint_id, succeeded, status_code, duration_ms, error, response_head, next_at)
        ),
        d AS (
            UPDATE webhook_deliveries d
               SET status = CASE WHEN o.succeeded THEN 'succeeded' WHEN o.next_at IS NULL THEN 'failed'
                                 ELSE 'pending' END,
                   next_attempt_at = CASE WHEN o.succeeded THEN NULL ELSE to_timestamp(o.next_at) END,
                   leased_until = NULL, last_attempt_at = now(), last_status_code = o.status_code,
                   last_duration_ms = o.duration_ms, last_error = o.error, last_response_head = o.response_head,
                   updated_at = now()
              FROM o
             WHERE d.endpoint_id = o.endpoint_id AND d.id = o.id AND (d.status <> 'succeeded' OR o.succeeded)
            RETURNING d.endpoint_id, o.succeeded
        ),
        outcome AS (
            SELECT d.endpoint_id, bool_or(d.succeeded) AS succeeded FROM d GROUP BY d.endpoint_id
        ),
        endpoint AS (
            UPDATE webhook_endpoints e
               SET failing_since = CASE WHEN p.succeeded THEN NULL ELSE coalesce(e.failing_since, now()) END,
                   enabled = CASE WHEN NOT p.succeeded AND e.failing_since < now() - $9::int * interval '1 hour'
                                  THEN false ELSE e.enabled END,
                   disabled_reason = CASE
                       WHEN NOT p.succeeded AND e.enabled AND e.failing_since < now() - $9::int * interval '1 hour'
                       THEN 'failing since ' || \(RowDecoding.timestamp("e.failing_since"))
                            || ', longer than webhooks.disable_after_hours (' || $9::int::text || ' h)'
                       ELSE e.disabled_reason END
              FROM outcome p
             WHERE e.id = p.endpoint_id
               AND CASE WHEN p.succeeded THEN e.failing_since IS NOT NULL
                        ELSE e.failing_since IS NULL
                             OR (e.enabled AND e.failing_since < now() - $9::int * interval '1 hour') END
        )
        SELECT count(*) FROM d
        """
}
