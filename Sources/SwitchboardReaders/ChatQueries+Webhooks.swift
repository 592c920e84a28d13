import SwitchboardPostgres
import SwitchboardWebhooks

/// Webhook endpoints for the management API (docs/webhooks.md, "Management
/// API"). Every call names the caller's workspace: an endpoint of another
/// workspace is no endpoint. Secrets are written here and never read back.
extension ChatQueries {
    /// A workspace's bound on live endpoints: each one multiplies every event's deliveries.
    public static let maxWebhookEndpoints = 100

    /// The channel that PostgreSQL notifies, at commit, when deliveries fell
    /// due (an event, a retry, an endpoint enabled again): dispatchers on
    /// every node listen to it. The writer's batches do not notify (their
    /// result counts their events instead: docs/writer.md, "Webhook outbox").
    public static let webhookChannel = "switchboard_webhooks"

    /// Creates the endpoint (and the workspace's row if missing, as
    /// `createSession` does); nil when the workspace has `maxWebhookEndpoints`
    /// already. Not retried after a lost connection: it may exist already.
    public func createWebhookEndpoint(
        workspaceID: String, _ endpoint: NewWebhookEndpoint
    ) throws(QueryError) -> WebhookEndpoint? {
        let result = try run(
            """
            WITH workspace AS (
                INSERT INTO workspaces (id, name) VALUES ($1::uuid, 'Workspace ' || $1::uuid::text)
                ON CONFLICT (id) DO NOTHING
            ),
            e AS (
                INSERT INTO webhook_endpoints (workspace_id, url, description, events, secret)
                SELECT $1::uuid, $2, $3, string_to_array($4, ','), $5
                 WHERE (SELECT count(*) FROM webhook_endpoints w
                         WHERE w.workspace_id = $1::uuid AND w.deleted_at IS NULL) < $6::int
                RETURNING *
            )
            SELECT \(Self.endpointColumns) FROM e
            """,
            [
                workspaceID, endpoint.url, endpoint.description, Self.eventList(endpoint.events), endpoint.secret,
                String(Self.maxWebhookEndpoints),
            ], retryable: false)
        return result.rowCount == 0 ? nil : try Self.endpoint(result, 0)
    }

    /// The workspace's live endpoints, oldest first.
    public func webhookEndpoints(workspaceID: String) throws(QueryError) -> [WebhookEndpoint] {
        let result = try run(
            """
            SELECT \(Self.endpointColumns) FROM webhook_endpoints e
             WHERE e.workspace_id = $1::uuid AND e.deleted_at IS NULL
             ORDER BY e.created_at, e.id
            """, [workspaceID], retryable: true)
        var endpoints: [WebhookEndpoint] = []
        for row in 0..<result.rowCount { endpoints.append(try Self.endpoint(result, row)) }
        return endpoints
    }

    /// nil: no such live endpoint in the workspace.
    public func webhookEndpoint(id: String, workspaceID: String) throws(QueryError) -> WebhookEndpoint? {
        let result = try run(
            """
            SELECT \(Self.endpointColumns) FROM webhook_endpoints e
             WHERE e.id = $1::uuid AND e.workspace_id = $2::uuid AND e.deleted_at IS NULL
            """, [id, workspaceID], retryable: true)
        return result.rowCount == 0 ? nil : try Self.endpoint(result, 0)
    }

    /// Applies `change`; the endpoint as it now is, nil when there is none.
    /// Enabling it clears its failure (`failing_since`, `disabled_reason`)
    /// and wakes the dispatchers: its pending deliveries are due again.
    /// Retryable: it writes a state.
    public func changeWebhookEndpoint(
        id: String, workspaceID: String, _ change: WebhookEndpointChange
    ) throws(QueryError) -> WebhookEndpoint? {
        var description: String?
        if case .some(let given) = change.description { description = given }
        let result = try run(
            """
            WITH e AS (
                UPDATE webhook_endpoints e
                   SET url = coalesce($3, e.url),
                       events = coalesce(string_to_array($4, ','), e.events),
                       description = CASE WHEN $5::boolean THEN $6 ELSE e.description END,
                       enabled = coalesce($7::boolean, e.enabled),
                       disabled_reason = CASE WHEN $7::boolean THEN NULL ELSE e.disabled_reason END,
                       failing_since = CASE WHEN $7::boolean THEN NULL ELSE e.failing_since END
                 WHERE e.id = $1::uuid AND e.workspace_id = $2::uuid AND e.deleted_at IS NULL
                RETURNING *
            )
            SELECT \(Self.endpointColumns), CASE WHEN $7::boolean THEN pg_notify($8, '') END FROM e
            """,
            [
                id, workspaceID, change.url, change.events.map(Self.eventList),
                change.description == nil ? "false" : "true",
                description, change.enabled.map { $0 ? "true" : "false" }, Self.webhookChannel,
            ], retryable: true)
        return result.rowCount == 0 ? nil : try Self.endpoint(result, 0)
    }

    /// Soft delete: no event goes to it any more, and its pending
    /// deliveries (those handed over to a dispatcher included) fail (`the
    /// endpoint was deleted`) in the same transaction.
    /// False when there was no such live endpoint. Retryable: a repeat finds none.
    public func deleteWebhookEndpoint(id: String, workspaceID: String) throws(QueryError) -> Bool {
        let result = try run(
            """
            WITH e AS (
                UPDATE webhook_endpoints SET deleted_at = now()
                 WHERE id = $1::uuid AND workspace_id = $2::uuid AND deleted_at IS NULL
                RETURNING id
            ),
            abandoned AS (
                UPDATE webhook_deliveries d
                   SET status = 'failed', next_attempt_at = NULL, last_error = 'the endpoint was deleted',
                       updated_at = now()
                  FROM e
                 WHERE d.endpoint_id = e.id AND d.status = 'pending'
            ),
            -- Those handed over to a dispatcher and not yet recorded (migration 39) fail the same way.
            handed AS (
                DELETE FROM webhook_handoffs h USING e WHERE h.endpoint_id = e.id
                RETURNING h.endpoint_id, h.workspace_id, h.delivery_ids, h.event_ids, h.created_at
            ),
            handed_failed AS (
                INSERT INTO webhook_deliveries (endpoint_id, id, workspace_id, event_id, status, attempts, last_error,
                                                created_at)
                OVERRIDING SYSTEM VALUE
                SELECT h.endpoint_id, x.id, h.workspace_id, x.event_id, 'failed', 1, 'the endpoint was deleted',
                       h.created_at
                  FROM handed h CROSS JOIN LATERAL unnest(h.delivery_ids, h.event_ids) AS x(id, event_id)
                ON CONFLICT (endpoint_id, id) DO NOTHING
            )
            SELECT count(*) FROM e
            """, [id, workspaceID], retryable: true)
        return (result.int(0, 0) ?? 0) > 0
    }

    /// Replaces the secret with `secret`, keeping the one it replaces for
    /// `overlapSeconds` (deliveries meanwhile carry both signatures, so a
    /// receiver can switch without losing one); a rotation within an overlap
    /// drops the older secret. Nil: no such endpoint. Not retried: a repeat
    /// would make the new secret the "previous" one.
    public func rotateWebhookSecret(
        id: String, workspaceID: String, secret: String, overlapSeconds: Int
    ) throws(QueryError) -> WebhookEndpoint? {
        let result = try run(
            """
            WITH e AS (
                UPDATE webhook_endpoints e
                   SET previous_secret = e.secret, secret = $3,
                       previous_secret_expires_at = now() + $4::int * interval '1 second'
                 WHERE e.id = $1::uuid AND e.workspace_id = $2::uuid AND e.deleted_at IS NULL
                RETURNING *
            )
            SELECT \(Self.endpointColumns) FROM e
            """, [id, workspaceID, secret, String(overlapSeconds)], retryable: false)
        return result.rowCount == 0 ? nil : try Self.endpoint(result, 0)
    }

    /// An endpoint row `e`, secrets left out; the previous secret's expiry only while it lasts.
    static let endpointColumns = """
        e.id::text, e.url, e.description, array_to_string(e.events, ','), e.enabled, e.disabled_reason,
        \(RowDecoding.timestamp("e.failing_since")),
        \(RowDecoding.timestamp("CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret_expires_at END")),
        \(RowDecoding.timestamp("e.created_at")), \(RowDecoding.timestamp("e.updated_at"))
        """

    static func endpoint(_ result: PostgresResult, _ row: Int) throws(QueryError) -> WebhookEndpoint {
        let names = try RowDecoding.required(result, row, 3)
        var events: [WebhookEventType] = []
        for name in names.split(separator: ",") {
            guard let type = WebhookEventType(rawValue: String(name)) else {
                throw .failed("unknown webhook event type \(name) in webhook_endpoints.events")
            }
            events.append(type)
        }
        return WebhookEndpoint(
            id: try RowDecoding.required(result, row, 0), url: try RowDecoding.required(result, row, 1),
            description: result.string(row, 2), events: events, enabled: result.bool(row, 4) == true,
            disabledReason: result.string(row, 5), failingSince: result.string(row, 6),
            previousSecretExpiresAt: result.string(row, 7), createdAt: try RowDecoding.required(result, row, 8),
            updatedAt: try RowDecoding.required(result, row, 9))
    }

    /// `a,b`: the names have no commas, so `string_to_array` reads them back.
    static func eventList(_ events: [WebhookEventType]) -> String {
        events.map(\.rawValue).joined(separator: ",")
    }
}
