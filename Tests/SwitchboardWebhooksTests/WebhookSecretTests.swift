import SwitchboardCrypto
import SwitchboardWebhooks
import Testing

@Suite struct WebhookSecretTests {
    @Test func generatedSecretsAreWhsecAnd32RandomBytes() throws {
        let first = WebhookSecret.generate()
        let second = WebhookSecret.generate()
        #expect(first.text.hasPrefix("whsec_"))
        #expect(first.key.count == 32)
        #expect(first != second)
        // What the API shows reads back as the same key.
        #expect(try WebhookSecret(parsing: first.text) == first)
        #expect(Base64.decode(first.text.dropFirst(6)) == first.key)
    }

    @Test func readsTheStandardsExampleSecret() throws {
        let secret = try WebhookSecret(parsing: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        #expect(secret.key.count == 24)
        #expect(secret.key.prefix(3) == [0x31, 0xF2, 0x90])
    }

    @Test func refusesMalformedSecrets() {
        let key24 = Base64.encode([UInt8](repeating: 7, count: 24))
        // 0xfbefbe and 0xffffff are "++++" and "////" in the standard alphabet.
        let urlSafe = Base64.encodeURLSafe((0..<4).flatMap { _ in [0xfb, 0xef, 0xbe, 0xff, 0xff, 0xff] as [UInt8] })
        #expect(urlSafe.contains("-") && urlSafe.contains("_"))
        let cases: [(String, WebhookSecretError)] = [
            ("", .missingPrefix),
            (key24, .missingPrefix),
            ("WHSEC_" + key24, .missingPrefix),
            ("whsec_", .notBase64),
            ("whsec_" + key24 + " ", .notBase64),
            ("whsec_" + String(key24.dropLast(2)), .notBase64),  // length not a multiple of 4
            ("whsec_" + urlSafe, .notBase64),  // the URL-safe alphabet
            ("whsec_abc=defg", .notBase64),  // padding inside
            ("whsec_ab===", .notBase64),
            ("whsec_" + Base64.encode([UInt8](repeating: 7, count: 23)), .wrongKeyLength(23)),
            ("whsec_" + Base64.encode([UInt8](repeating: 7, count: 65)), .wrongKeyLength(65)),
        ]
        for (text, expected) in cases {
            #expect(throws: expected, "\(text)") { try WebhookSecret(parsing: text) }
        }
    }

    @Test func acceptsPaddedKeysWithinTheStandardsSizes() throws {
        for count in [24, 25, 26, 32, 64] {
            let key = (0..<count).map { UInt8($0 * 7 & 0xff) }
            #expect(try WebhookSecret(parsing: "whsec_" + Base64.encode(key)).key == key)
        }
    }

    @Test func neverShowsTheKeyWhenPrinted() throws {
        let secret = WebhookSecret.generate()
        let printed = "\(secret)"
        #expect(!printed.contains(secret.text.dropFirst(6)))
        #expect(printed == "whsec_<32-byte key, redacted>")
    }
}
