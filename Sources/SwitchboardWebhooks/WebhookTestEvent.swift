/// The event `POST /api/v1/webhooks/{id}/test` sends to one endpoint: an
/// envelope like every other (`{"id","type","created_at","workspace_id",
/// "data":{"endpoint_id":...}}`), signed and retried the same way. Not a
/// `WebhookEventType`: nobody subscribes to it, and it goes to the endpoint
/// it tests whatever that endpoint asked for.
public enum WebhookTestEvent {
    public static let type = "webhook.test"
}
