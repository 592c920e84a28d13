import SwitchboardCrypto

/// A new signing secret: `whsec_` and the base64 of 32 random bytes, the
/// Standard Webhooks form. (Delivery's `WebhookSecret` reads them back.)
enum EndpointSecret {
    static func make() -> String { "whsec_" + Base64.encode(SecureRandom.bytes(32)) }
}
