/// The events an endpoint may subscribe to (PROTOCOL.md, "Webhooks").
public enum WebhookEventType: String, Sendable, CaseIterable, Codable {
    case sessionCreated = "session.created"
    case sessionUpdated = "session.updated"
    case sessionDeleted = "session.deleted"
    case messageCreated = "message.created"
    /// Operators' private notes: sent only to endpoints that ask for them by name.
    case noteCreated = "note.created"
}
