import SwitchboardPostgres
import SwitchboardWebhooks

/// An endpoint's delivery log and what an admin does with it: retry one
/// delivery, retry every failed one since a time, send a test event; and the
/// outbox's gauges for the metrics.
extension ChatQueries {
    /// A page of the endpoint's deliveries, newest first, older than
    /// `before` (a delivery id) when given, of `status` when given; the
    /// cursor of the next page (nil on the last). Those handed over to a
    /// dispatcher and not yet recorded (migration 39) are listed as they
    /// were before it, pending, their attempt counted, due when their lease
    /// ends. The caller has checked that the endpoint is the workspace's.
    public func webhookDeliveries(
        endpointID: String, workspaceID: String, status: WebhookDelivery.Status?, before: Int64?, limit: Int
    ) throws(QueryError) -> (deliveries: [WebhookDelivery], next: Int64?) {
        let result = try run(
            """
            SELECT \(Self.deliveryColumns)
              FROM ((SELECT \(Self.rowColumns)
                       FROM webhook_deliveries d
                      WHERE d.endpoint_id = $1::uuid AND d.workspace_id = $2::uuid
                        AND ($3::text IS NULL OR d.status = $3) AND ($4::bigint IS NULL OR d.id < $4::bigint)
                      ORDER BY d.id DESC
                      LIMIT $5::int)
                    UNION ALL
                    (SELECT \(Self.handedColumns)
                       FROM \(Self.handedDeliveries(endpoint: "$1", workspace: "$2"))
                        AND ($3::text IS NULL OR $3 = 'pending') AND ($4::bigint IS NULL OR x.id < $4::bigint)
                      ORDER BY x.id DESC
                      LIMIT $5::int)) d
              JOIN webhook_events ev ON ev.id = d.event_id
             ORDER BY d.id DESC
             LIMIT $5::int
            """,
            [endpointID, workspaceID, status?.rawValue, before.map(String.init), String(limit + 1)], retryable: true)
        var deliveries: [WebhookDelivery] = []
        for row in 0..<min(result.rowCount, limit) { deliveries.append(try Self.delivery(result, row)) }
        let next = result.rowCount > limit ? deliveries.last.flatMap { Int64($0.id) } : nil
        return (deliveries, next)
    }

    /// Sends the delivery again now, whatever became of it (an attempt in
    /// flight keeps its lease and is not doubled: one handed over to a
    /// dispatcher and not yet recorded, migration 39, is left to it); the
    /// delivery as it now is, nil when the endpoint (live) has no such
    /// delivery. One more attempt: a failure after it, with the retries
    /// spent, fails it again.
    public func retryWebhookDelivery(
        id: Int64, endpointID: String, workspaceID: String
    ) throws(QueryError) -> WebhookDelivery? {
        let result = try run(
            """
            WITH live AS (
                SELECT e.id FROM webhook_endpoints e
                 WHERE e.id = $2::uuid AND e.workspace_id = $3::uuid AND e.deleted_at IS NULL
            ),
            d AS (
                UPDATE webhook_deliveries d
                   SET status = 'pending', next_attempt_at = now(), updated_at = now()
                  FROM live
                 WHERE d.id = $1::bigint AND d.endpoint_id = live.id AND d.workspace_id = $3::uuid
                RETURNING \(Self.rowColumns)
            )
            SELECT \(Self.deliveryColumns), pg_notify($4, '')
              FROM (SELECT * FROM d
                    UNION ALL
                    SELECT \(Self.handedColumns)
                      FROM \(Self.handedDeliveries(endpoint: "$2", workspace: "$3"))
                       AND x.id = $1::bigint AND EXISTS (SELECT 1 FROM live) AND NOT EXISTS (SELECT 1 FROM d)) d
              JOIN webhook_events ev ON ev.id = d.event_id
            """, [String(id), endpointID, workspaceID, Self.webhookChannel], retryable: true)
        return result.rowCount == 0 ? nil : try Self.delivery(result, 0)
    }

    /// Every failed delivery to the endpoint of an event since `sinceUTC`
    /// (PostgreSQL's input form) is due again now, for a receiver that is
    /// back; how many. The caller has checked the endpoint.
    public func retryFailedWebhookDeliveries(
        endpointID: String, workspaceID: String, sinceUTC: String
    ) throws(QueryError) -> Int {
        let result = try run(
            """
            WITH d AS (
                UPDATE webhook_deliveries d
                   SET status = 'pending', next_attempt_at = now(), updated_at = now()
                 WHERE d.endpoint_id = $1::uuid AND d.workspace_id = $2::uuid AND d.status = 'failed'
                   AND d.created_at >= $3::timestamptz
                RETURNING 1
            )
            SELECT count(*), CASE WHEN count(*) > 0 THEN pg_notify($4, '') END FROM d
            """, [endpointID, workspaceID, sinceUTC, Self.webhookChannel], retryable: true)
        return Int(try RowDecoding.int64(result, 0, 0))
    }

    /// A `webhook.test` event to this endpoint alone, due now, whatever
    /// types it asked for; its id (`evt_...`), nil when there is no such
    /// live endpoint. Not retried: a repeat would send a second test.
    public func sendWebhookTestEvent(endpointID: String, workspaceID: String) throws(QueryError) -> String? {
        let result = try run(
            """
            SELECT switchboard_webhook_emit($2::uuid, $3, '{"endpoint_id":"' || $1::uuid::text || '"}', $1::uuid)
            """, [endpointID, workspaceID, WebhookTestEvent.type], retryable: false)
        return result.rowCount == 1 ? result.string(0, 0) : nil
    }

    /// Pending deliveries per endpoint, and how long the oldest due one has waited.
    public func webhookOutboxGauges() throws(QueryError) -> [WebhookOutboxGauge] {
        let result = try run(Self.outboxGaugesStatement, [], retryable: true)
        var gauges: [WebhookOutboxGauge] = []
        for row in 0..<result.rowCount {
            gauges.append(
                WebhookOutboxGauge(
                    endpointID: try RowDecoding.required(result, row, 0),
                    workspaceID: try RowDecoding.required(result, row, 1),
                    pending: Int(try RowDecoding.int64(result, row, 2)),
                    oldestDueSeconds: try RowDecoding.double(result, row, 3) ?? 0))
        }
        return gauges
    }

    /// Counts every pending delivery, those handed over to a dispatcher and
    /// not yet recorded (`webhook_handoffs`, migration 39: due when their
    /// lease ends) included: the sampler's connection runs it in one process
    /// and without JIT (`BackgroundRole.sessionSettings`).
    static let outboxGaugesStatement = """
        SELECT p.endpoint_id::text, p.workspace_id::text, sum(p.count)::bigint,
               coalesce(extract(epoch FROM now() - min(p.due) FILTER (WHERE p.due <= now())), 0)::float8
          FROM (SELECT d.endpoint_id, d.workspace_id, 1 AS count, d.next_attempt_at AS due
                  FROM webhook_deliveries d
                 WHERE d.status = 'pending'
                UNION ALL
                SELECT h.endpoint_id, h.workspace_id, h.outstanding, h.leased_until
                  FROM webhook_handoffs h) p
         GROUP BY p.endpoint_id, p.workspace_id
         ORDER BY p.endpoint_id
        """

    /// What `deliveryColumns` reads of a delivery `d`.
    static let rowColumns = """
        d.id, d.event_id, d.status, d.attempts, d.last_status_code, d.last_duration_ms, d.last_error,
        d.last_response_head, d.last_attempt_at, d.next_attempt_at, d.created_at
        """

    /// The deliveries of `endpoint` (of `workspace`: placeholders) handed
    /// over to a dispatcher and not yet written (`x`, with their handoff
    /// `h`), to be narrowed with `AND`.
    static func handedDeliveries(endpoint: String, workspace: String) -> String {
        """
        webhook_handoffs h CROSS JOIN LATERAL unnest(h.delivery_ids, h.event_ids) AS x(id, event_id)
         WHERE h.endpoint_id = \(endpoint)::uuid AND h.workspace_id = \(workspace)::uuid
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries w WHERE w.endpoint_id = h.endpoint_id AND w.id = x.id)
        """
    }

    /// `rowColumns` of a delivery handed over and not yet written: pending,
    /// its attempt counted, due when the lease ends (as its row was before
    /// migration 39).
    static let handedColumns = """
        x.id, x.event_id, 'pending'::text, 1, NULL::int, NULL::int, NULL::text, NULL::text, NULL::timestamptz,
        h.leased_until, h.created_at
        """

    /// A delivery row `d` and its event `ev`.
    static let deliveryColumns = """
        d.id::text, d.event_id, ev.type, d.status, d.attempts, d.last_status_code, d.last_duration_ms,
        d.last_error, d.last_response_head, \(RowDecoding.timestamp("d.last_attempt_at")),
        \(RowDecoding.timestamp("CASE WHEN d.status = 'pending' THEN d.next_attempt_at END")),
        \(RowDecoding.timestamp("d.created_at"))
        """

    static func delivery(_ result: PostgresResult, _ row: Int) throws(QueryError) -> WebhookDelivery {
        let statusText = try RowDecoding.required(result, row, 3)
        guard let status = WebhookDelivery.Status(rawValue: statusText) else {
            throw .failed("unexpected delivery status \(statusText)")
        }
        func optionalInt(_ column: Int) throws(QueryError) -> Int? {
            result.isNull(row, column) ? nil : Int(try RowDecoding.int64(result, row, column))
        }
        return WebhookDelivery(
            id: try RowDecoding.required(result, row, 0), eventID: try RowDecoding.required(result, row, 1),
            eventType: try RowDecoding.required(result, row, 2), status: status,
            attempts: Int(try RowDecoding.int64(result, row, 4)), lastStatusCode: try optionalInt(5),
            lastDurationMilliseconds: try optionalInt(6), lastError: result.string(row, 7),
            lastResponseHead: result.string(row, 8), lastAttemptAt: result.string(row, 9),
            nextAttemptAt: result.string(row, 10), createdAt: try RowDecoding.required(result, row, 11))
    }
}
