import SwitchboardPostgres
import SwitchboardWebhooks

/// What one pass of the webhook expander did.
public struct WebhookBacklogPass: Sendable, Equatable {
    /// Backlog rows taken, one per batch.
    public let ranges: Int
    /// Messages read from those batches.
    public let messages: Int
    /// Events written (with their deliveries): messages of workspaces with an endpoint for their type.
    public let events: Int
    /// Deliveries written due now, for any node's claim (the others were handed to the caller).
    public let due: Int
    /// Whether work was left: the budget ran out before the backlog did.
    public let more: Bool

    public init(ranges: Int, messages: Int, events: Int, due: Int, more: Bool) {
        self.ranges = ranges
        self.messages = messages
        self.events = events
        self.due = due
        self.more = more
    }
}

extension ChatQueries {
    /// Messages one pass reads at most (at least one; a writer's batch that
    /// does not fit is split, migration 28): a pass of 2,000 events takes the
    /// database about 25 ms, so no pass holds back the oldest snapshot for
    /// long.
    public static let webhookBacklogBudget = 2_000

    /// The messages stored and not yet made into events, by any node: at
    /// most so many (a batch's width counts its duplicates and refused
    /// sends, which have no message), and how long ago the oldest batch
    /// among them committed (0 when there is none). One row per writer's
    /// batch is read: cheap while the expanders keep up, and a few thousand
    /// rows when they are far behind.
    public func webhookBacklogGauge() throws(QueryError) -> (messages: Int, oldestSeconds: Double) {
        let result = try run(
            """
            SELECT coalesce(sum(('x' || right(b.last_id::text, 12))::bit(48)::bigint
                                - ('x' || right(b.after_id::text, 12))::bit(48)::bigint), 0)::bigint,
                   coalesce(extract(epoch FROM now() - min(b.committed_at)), 0)::float8
              FROM webhook_backlog b
            """, [], retryable: true)
        return (Int(try RowDecoding.int64(result, 0, 0)), max(0, try RowDecoding.double(result, 0, 1) ?? 0))
    }

    /// Whether an endpoint other than `excluded` takes message events now
    /// (enabled, not deleted, subscribed to `message.created` or
    /// `note.created`), in any workspace: one a pass of the expander could
    /// make deliveries for. Compared as text, so that no id the caller holds
    /// can fail the statement (and stall the expander's passes); the scan
    /// stops at the first such endpoint.
    public func messageWebhookEndpointExists(besides excluded: [String]) throws(QueryError) -> Bool {
        let result = try run(
            prepared: "webhook_message_endpoint_besides",
            """
            SELECT EXISTS (SELECT 1 FROM webhook_endpoints
                            WHERE enabled AND deleted_at IS NULL
                              AND events && '{message.created,note.created}'::text[]
                              AND id::text <> ALL ($1::text[]))
            """, [RowDecoding.textArray(excluded)], retryable: true)
        return try RowDecoding.required(result, 0, 0) == "t"
    }

    /// One pass of the webhook expander (`switchboard_webhook_expand`,
    /// migrations 23, 28 and 29): takes backlog rows no other node holds
    /// (`SKIP LOCKED`) in id order, writes each batch's `message.created` and
    /// `note.created` events and their deliveries and deletes its row, until
    /// `budget` messages are read; where the budget ends inside a batch, its
    /// first messages are taken and its row keeps the rest, first in line.
    /// Of the deliveries, as many as `room` allows (so many in all, and of
    /// each endpoint its share less what the caller holds of it; migration
    /// 29) are handed over, leased to the caller for `leaseSeconds`, and
    /// returned, to be sent without a claim: one `webhook_handoffs` row per
    /// endpoint, and each delivery's own row written by its outcome's record
    /// (migration 39); the rest are due now, and dispatchers on every node
    /// are notified at commit. One statement, one transaction, safe to repeat
    /// after a lost connection: the rows of a pass that committed are gone,
    /// and what it handed over comes due when the lease ends (the reply was
    /// lost, not the deliveries: `recoverWebhookHandoffs`); those of one that
    /// did not are still waiting, unexpanded. A message event's body is built
    /// here from its message's columns (`MessageEventBody`, migration 41).
    public func expandWebhookBacklog(
        budget: Int = webhookBacklogBudget, handoff room: HandOffRoom = .none, leaseSeconds: Int = 60
    ) throws(QueryError) -> (pass: WebhookBacklogPass, handed: [DueDelivery]) {
        let held = room.held.sorted { $0.key < $1.key }
        let result = try run(
            prepared: "webhook_expand",
            """
            SELECT ranges, messages, events, due, more, delivery_id, event_id, endpoint_id, url, secret,
                   previous_secret, created_at, handoff_id, message_id, message_session_id, message_seq,
                   message_client_msg_id, message_kind, message_body, message_sender_id, message_sender_role,
                   message_sender_name, message_time, message_attachments, session_version, event_type,
                   event_workspace_id
              FROM switchboard_webhook_expand($1::int, $2::int, $3::int, $4::int, $5::uuid[], $6::int[])
            """,
            [
                String(budget), String(max(0, room.limit)), String(leaseSeconds), String(room.perEndpoint),
                "{" + held.map(\.key).joined(separator: ",") + "}",
                "{" + held.map { String($0.value) }.joined(separator: ",") + "}",
            ], retryable: true)
        var handed: [DueDelivery] = []
        handed.reserveCapacity(max(0, result.rowCount - 1))
        var pass: WebhookBacklogPass?
        for row in 0..<result.rowCount {
            guard let id = result.string(row, 5) else {
                pass = WebhookBacklogPass(
                    ranges: Int(try RowDecoding.int64(result, row, 0)),
                    messages: Int(try RowDecoding.int64(result, row, 1)),
                    events: Int(try RowDecoding.int64(result, row, 2)), due: Int(try RowDecoding.int64(result, row, 3)),
                    more: result.string(row, 4) == "t")
                continue
            }
            var secrets = [try RowDecoding.required(result, row, 9)]
            if let previous = result.string(row, 10) { secrets.append(previous) }
            let columns = HandedMessageColumns(result: result, row: row)
            for field in MessageEventBody.Field.allCases where !field.nullable {
                let column = HandedMessageColumns.column(of: field)
                if result.isNull(row, column) {
                    throw .failed("unexpected NULL in column \(result.columnName(column))")
                }
            }
            let eventID = try RowDecoding.required(result, row, 6)
            handed.append(
                DueDelivery(
                    id: id, eventID: eventID, endpointID: try RowDecoding.required(result, row, 7),
                    url: try RowDecoding.required(result, row, 8), secrets: secrets,
                    body: MessageEventBody.text(of: columns), attempt: 0,
                    eventCreatedAt: try RowDecoding.double(result, row, 11) ?? 0,
                    handoffID: try RowDecoding.required(result, row, 12)))
        }
        guard let pass else { throw .failed("the webhook expansion returned no counts") }
        return (pass, handed)
    }
}

/// A handed-over delivery's message, read in place from the pass's result
/// (the columns `expandWebhookBacklog` selects) for `MessageEventBody`.
private struct HandedMessageColumns: MessageEventColumns {
    let result: PostgresResult
    let row: Int

    /// Where the field is in the row: the columns `expandWebhookBacklog` selects.
    static func column(of field: MessageEventBody.Field) -> Int {
        switch field {
        case .eventID: 6
        case .messageID: 13
        case .sessionID: 14
        case .seq: 15
        case .clientMessageID: 16
        case .kind: 17
        case .body: 18
        case .senderID: 19
        case .senderRole: 20
        case .senderName: 21
        case .time: 22
        case .attachments: 23
        case .sessionVersion: 24
        case .type: 25
        case .workspaceID: 26
        }
    }

    func visitField(_ field: MessageEventBody.Field, _ body: (UnsafeRawBufferPointer?) -> Void) {
        result.visitBytes(row, Self.column(of: field), body)
    }
}
