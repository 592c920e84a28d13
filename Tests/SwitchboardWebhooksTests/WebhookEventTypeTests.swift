import SwitchboardWebhooks
import Testing

@Suite struct WebhookEventTypeTests {
    /// The names are the protocol's; a renamed case would break every subscription stored.
    @Test func namesAreTheProtocols() {
        #expect(
            WebhookEventType.allCases.map(\.rawValue) == [
                "session.created", "session.updated", "session.deleted", "message.created", "note.created",
            ])
    }
}
