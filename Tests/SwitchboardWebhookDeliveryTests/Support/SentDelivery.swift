import Foundation
import SwitchboardWebhooks

/// A delivery as the dispatcher put it on the wire (signed with two secrets,
/// as during a rotation), caught by the test receiver: what receivers'
/// verifiers are held to.
struct SentDelivery {
    var current: WebhookSecret
    var previous: WebhookSecret
    /// The `webhook-*` headers as received.
    var headers: [String: String]
    var body: String

    static func capture() throws -> SentDelivery {
        let fixture = try DispatcherFixture()
        defer { fixture.stop() }
        let previous = WebhookSecret.generate()
        var delivery = fixture.delivery(1, secrets: [fixture.secret.text, previous.text])
        // Bytes a careless verifier would mangle: non-ASCII text, escapes, a trailing newline in a string.
        delivery.body = #"{"id":"evt_1","type":"message.created","data":{"text":"Grüße 👋 \"quoted\"\n"}}"#
        fixture.queue.add(delivery)
        try fixture.start()
        guard fixture.queue.waitForOutcomes(1), let request = fixture.receiver.requests.first else {
            throw CaptureFailed()
        }
        return SentDelivery(
            current: fixture.secret, previous: previous,
            headers: request.headers.filter { $0.key.hasPrefix("webhook-") },
            body: request.body)
    }

    struct CaptureFailed: Error {}

    /// Each verifier gets these, as a JSON array on stdin (`secret`, `headers`,
    /// `body` in base64), and must answer with the expected words, a line each.
    func cases() -> (input: Data, expected: [String]) {
        var tamperedBody = Array(body.utf8)
        tamperedBody[tamperedBody.count - 3] ^= 0x01
        var laterTimestamp = headers
        laterTimestamp["webhook-timestamp"] = String(Int(headers["webhook-timestamp"]!)! + 1)
        let cases: [(String, [String: String], [UInt8], String)] = [
            (current.text, headers, Array(body.utf8), "verified"),
            (previous.text, headers, Array(body.utf8), "verified"),
            (current.text, headers, tamperedBody, "rejected"),
            (WebhookSecret.generate().text, headers, Array(body.utf8), "rejected"),
            (current.text, laterTimestamp, Array(body.utf8), "rejected"),
        ]
        let json = cases.map { secret, headers, body, _ in
            ["secret": secret, "headers": headers, "body": Data(body).base64EncodedString()] as [String: Any]
        }
        return (try! JSONSerialization.data(withJSONObject: json), cases.map(\.3))
    }
}
