import SwitchboardWebhooks
import Testing

@Suite struct WebhookSignatureTests {
    /// The example every Standard Webhooks reference library tests against
    /// (its specification's secret, id, timestamp, body and signature):
    /// matching it is what says that a receiver's library accepts ours, which
    /// a round trip through our own `verify` cannot say.
    static let example = (
        secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
        timestamp: Int64(1_614_265_330), body: #"{"test": 2432232314}"#,
        signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    )

    @Test func reproducesTheStandardsReferenceSignature() throws {
        let secret = try WebhookSecret(parsing: Self.example.secret)
        let e = Self.example
        #expect(WebhookSignature.sign(id: e.id, timestamp: e.timestamp, body: e.body, secret: secret) == e.signature)
        #expect(
            WebhookSignature.verify(
                header: e.signature, id: e.id, timestamp: e.timestamp, body: e.body, secret: secret, now: e.timestamp))
    }

    /// The dispatcher signs with keys made ready once: the same header, byte
    /// for byte, as signing with the secrets, the reference example included.
    @Test func keysMadeReadySignAsTheSecretsDo() throws {
        let e = Self.example
        let reference = try WebhookSecret(parsing: e.secret)
        #expect(
            try WebhookSignature.header(
                id: e.id, timestamp: e.timestamp, body: e.body, keys: [try WebhookSigningKey(reference)])
                == e.signature)
        let secrets = [WebhookSecret.generate(), WebhookSecret.generate()]
        let keys = try secrets.map { try WebhookSigningKey($0) }
        for body in ["", "{}", #"{"message":{"body":"héllo ✓"}}"#, String(repeating: "x", count: 4_000)] {
            for timestamp: Int64 in [0, 1_614_265_330] {
                #expect(
                    try WebhookSignature.header(id: "evt_1", timestamp: timestamp, body: body, keys: keys)
                        == WebhookSignature.header(id: "evt_1", timestamp: timestamp, body: body, secrets: secrets))
            }
        }
    }

    @Test func signsWithEverySecretDuringARotation() throws {
        let old = WebhookSecret.generate()
        let new = WebhookSecret.generate()
        let header = WebhookSignature.header(id: "evt_1", timestamp: 1000, body: "{}", secrets: [new, old])
        let entries = header.split(separator: " ")
        #expect(entries.count == 2)
        #expect(entries.allSatisfy { $0.hasPrefix("v1,") })
        for secret in [old, new] {
            #expect(
                WebhookSignature.verify(
                    header: header, id: "evt_1", timestamp: 1000, body: "{}", secret: secret, now: 1000))
        }
        #expect(
            !WebhookSignature.verify(
                header: header, id: "evt_1", timestamp: 1000, body: "{}", secret: .generate(), now: 1000))
    }

    @Test func refusesAnyChangeToWhatWasSigned() throws {
        let secret = WebhookSecret.generate()
        let header = WebhookSignature.header(id: "evt_1", timestamp: 1000, body: #"{"a":1}"#, secrets: [secret])
        func verifies(id: String = "evt_1", timestamp: Int64 = 1000, body: String = #"{"a":1}"#) -> Bool {
            WebhookSignature.verify(header: header, id: id, timestamp: timestamp, body: body, secret: secret, now: 1000)
        }
        #expect(verifies())
        #expect(!verifies(id: "evt_2"))
        #expect(!verifies(timestamp: 1001))
        #expect(!verifies(body: #"{"a":2}"#))
        #expect(!verifies(body: #"{"a":1} "#))
    }

    @Test func refusesTimestampsOutsideTheTolerance() throws {
        let secret = WebhookSecret.generate()
        let header = WebhookSignature.header(id: "evt_1", timestamp: 1000, body: "{}", secrets: [secret])
        for (now, expected) in [(1300, true), (700, true), (1301, false), (699, false)] {
            #expect(
                WebhookSignature.verify(
                    header: header, id: "evt_1", timestamp: 1000, body: "{}", secret: secret, now: Int64(now))
                    == expected, "now \(now)")
        }
    }

    @Test func skipsOtherVersionsAndGarbageInTheHeader() throws {
        let secret = WebhookSecret.generate()
        let good = WebhookSignature.sign(id: "evt_1", timestamp: 5, body: "{}", secret: secret)
        let signature = good.dropFirst(3)
        for header in ["v2,\(signature)", "v1a,\(signature)", "v1 \(signature)", "", "v1,", "v1,!!!!"] {
            #expect(
                !WebhookSignature.verify(header: header, id: "evt_1", timestamp: 5, body: "{}", secret: secret, now: 5),
                "\(header)")
        }
        for header in ["v2,abcd \(good)", "v1,bm9wZQ== \(good)", "junk  \(good)"] {
            #expect(
                WebhookSignature.verify(header: header, id: "evt_1", timestamp: 5, body: "{}", secret: secret, now: 5),
                "\(header)")
        }
    }
}
