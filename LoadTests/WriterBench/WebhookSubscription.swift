import SwitchboardPostgres

/// With --webhook: the measured workspace has an enabled endpoint asking for
/// `message.created`, so that each batch also writes its messages' events and
/// deliveries to the outbox (docs/writer.md, "Webhook outbox"). Made after
/// the sessions and before the clock starts.
func subscribeToMessages(_ connection: PostgresConnection, workspace: String) throws {
    try connection.query(
        """
        INSERT INTO webhook_endpoints (workspace_id, url, events, secret)
        VALUES ($1::uuid, 'https://receiver.example/hooks', '{message.created}', 'whsec_bench')
        """, [workspace])
}

/// The workspace's outbox after a run: events and deliveries written (each
/// must be one per stored message with the endpoint, none without).
func outboxRows(_ connection: PostgresConnection, workspace: String) throws -> (events: Int, deliveries: Int) {
    let result = try connection.query(
        """
        SELECT (SELECT count(*) FROM webhook_events WHERE workspace_id = $1::uuid AND type = 'message.created'),
               (SELECT count(*) FROM webhook_deliveries WHERE workspace_id = $1::uuid)
        """, [workspace])
    return (result.int(0, 0) ?? -1, result.int(0, 1) ?? -1)
}
