import SwitchboardWebhooks
import Testing

@testable import SwitchboardWebhookDelivery

@Suite struct EndpointPreparationsTests {
    private func delivery(
        endpoint: String = "e1", url: String = "https://example.com/hook", secrets: [String]
    )
        -> DueDelivery
    {
        DueDelivery(
            id: "d1", eventID: "evt_1", endpointID: endpoint, url: url, secrets: secrets, body: "{}", attempt: 0,
            eventCreatedAt: 0)
    }

    private func keys(_ result: Result<[WebhookSigningKey], EndpointPreparations.Failure>) -> [[UInt8]]? {
        try? result.get().map(\.secret.key)
    }

    @Test func anEndpointsSecretsAreDecodedAndFollowItsRotation() {
        var preparations = EndpointPreparations()
        let (first, second) = (WebhookSecret.generate(), WebhookSecret.generate())
        #expect(keys(preparations.signingKeys(for: delivery(secrets: [first.text]))) == [first.key])
        #expect(keys(preparations.signingKeys(for: delivery(secrets: [first.text]))) == [first.key])
        // A rotation's overlap, then the new secret alone: never the memo's old answer.
        #expect(
            keys(preparations.signingKeys(for: delivery(secrets: [second.text, first.text]))) == [
                second.key, first.key,
            ])
        #expect(keys(preparations.signingKeys(for: delivery(secrets: [second.text]))) == [second.key])
    }

    @Test func aBadURLOrSecretIsRefusedAndAFixedOneIsTakenAgain() {
        var preparations = EndpointPreparations()
        let secret = WebhookSecret.generate()
        let badURL = preparations.signingKeys(for: delivery(url: "ftp://example.com/", secrets: [secret.text]))
        #expect(keys(badURL) == nil)
        #expect(keys(preparations.signingKeys(for: delivery(secrets: [secret.text]))) == [secret.key])
        let badSecret = preparations.signingKeys(for: delivery(secrets: ["whsec_not base64"]))
        guard case .failure(.secret(.notBase64)) = badSecret else {
            Issue.record("expected a secret that is not base64, got \(badSecret)")
            return
        }
        #expect(keys(preparations.signingKeys(for: delivery(secrets: []))) == nil)
    }

    @Test func manyEndpointsStayBoundedAndCorrect() {
        var preparations = EndpointPreparations()
        let secrets = (0...EndpointPreparations.capacity).map { _ in WebhookSecret.generate() }
        for round in 0..<2 {
            for (index, secret) in secrets.enumerated() {
                let result = preparations.signingKeys(for: delivery(endpoint: "e\(index)", secrets: [secret.text]))
                #expect(keys(result) == [secret.key], "round \(round), endpoint \(index)")
            }
        }
        #expect(preparations.count <= EndpointPreparations.capacity)
    }
}
