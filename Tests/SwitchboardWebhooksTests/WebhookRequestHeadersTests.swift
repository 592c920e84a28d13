import SwitchboardWebhooks
import Testing

@Suite struct WebhookRequestHeadersTests {
    @Test func carriesTheEventIdTheSendTimeAndASignaturePerSecret() throws {
        let current = WebhookSecret.generate()
        let previous = WebhookSecret.generate()
        let delivery = DueDelivery(
            id: "d1", eventID: "evt_01J", endpointID: "e1", url: "https://example.com/",
            secrets: [current.text, previous.text], body: #"{"id":"evt_01J"}"#, attempt: 3, eventCreatedAt: 0)
        let headers = try WebhookRequestHeaders.of(delivery, timestamp: 1_764_000_000)
        #expect(
            headers.map(\.name) == [
                "content-type", "user-agent", "webhook-id", "webhook-timestamp", "webhook-signature",
            ])
        let value = Dictionary(uniqueKeysWithValues: headers.map { ($0.name, $0.value) })
        #expect(value["content-type"] == "application/json")
        #expect(value["user-agent"] == "Switchboard-Webhooks/1")
        #expect(value["webhook-id"] == "evt_01J")
        #expect(value["webhook-timestamp"] == "1764000000")
        for secret in [current, previous] {
            #expect(
                WebhookSignature.verify(
                    header: value["webhook-signature"]!, id: "evt_01J", timestamp: 1_764_000_000, body: delivery.body,
                    secret: secret, now: 1_764_000_000))
        }
        // No header holds a secret.
        #expect(!headers.contains { $0.value.contains(current.text.dropFirst(6)) })
    }

    @Test func refusesAnEndpointWithoutAUsableSecret() {
        var delivery = DeliveryOutcomeTests.delivery(attempt: 0)
        #expect(throws: WebhookSecretError.missing) { try WebhookRequestHeaders.of(delivery, timestamp: 1) }
        delivery.secrets = [WebhookSecret.generate().text, "whsec_short"]
        #expect(throws: WebhookSecretError.notBase64) { try WebhookRequestHeaders.of(delivery, timestamp: 1) }
    }
}
