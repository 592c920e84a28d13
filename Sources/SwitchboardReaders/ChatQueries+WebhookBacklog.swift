import SwitchboardPostgres

/// What one pass of the webhook expander did.
public struct WebhookBacklogPass: Sendable, Equatable {
    /// Backlog rows taken, one per batch.
    public let ranges: Int
    /// Messages read from those batches.
    public let messages: Int
    /// Events written (with their deliveries): messages of workspaces with an endpoint for their type.
    public let events: Int
    /// Whether work was left: the budget ran out before the backlog did.
    public let more: Bool

    public init(ranges: Int, messages: Int, events: Int, more: Bool) {
        self.ranges = ranges
        self.messages = messages
        self.events = events
        self.more = more
    }
}

extension ChatQueries {
    /// Messages one pass reads at most (whole batches; at least one): a pass
    /// of 2,000 events takes the database about 25 ms, so no pass holds back
    /// the oldest snapshot for long.
    public static let webhookBacklogBudget = 2_000

    /// One pass of the webhook expander (migration 21's
    /// `switchboard_webhook_expand`): takes backlog rows no other node holds
    /// (`SKIP LOCKED`) in id order, writes each batch's `message.created` and
    /// `note.created` events and their deliveries and deletes its row, until
    /// `budget` messages are read; notifies `webhookChannel` at commit when it
    /// wrote any. One statement, one transaction, safe to repeat after a lost
    /// connection: the rows of a pass that committed are gone, and those of one
    /// that did not are still waiting, unexpanded.
    public func expandWebhookBacklog(budget: Int = webhookBacklogBudget) throws(QueryError) -> WebhookBacklogPass {
        let result = try run(
            "SELECT ranges, messages, events, more FROM switchboard_webhook_expand($1::int)", [String(budget)],
            retryable: true)
        return WebhookBacklogPass(
            ranges: Int(try RowDecoding.int64(result, 0, 0)), messages: Int(try RowDecoding.int64(result, 0, 1)),
            events: Int(try RowDecoding.int64(result, 0, 2)), more: result.string(0, 3) == "t")
    }
}
