import SwitchboardCrypto

/// Standard Webhooks' version 1 signatures: `v1,` and the base64 of
/// HMAC-SHA256 over `"<webhook-id>.<webhook-timestamp>.<body>"`, keyed with the
/// secret's decoded bytes.
public enum WebhookSignature {
    public static let version = "v1"
    /// How far a timestamp may be from the receiver's clock before `verify`
    /// takes the request for a replay (the reference libraries' five minutes).
    public static let defaultTolerance: Int64 = 300

    /// One signature, `v1,<base64>`.
    public static func sign(id: String, timestamp: Int64, body: String, secret: WebhookSecret) -> String {
        entry(mac(id: id, timestamp: timestamp, body: body, key: secret.key))
    }

    /// The `webhook-signature` header: one signature per secret, separated by
    /// spaces. During a rotation's overlap the endpoint has two secrets, and a
    /// receiver holding either one finds a signature it can check.
    public static func header(id: String, timestamp: Int64, body: String, secrets: [WebhookSecret]) -> String {
        secrets.map { sign(id: id, timestamp: timestamp, body: body, secret: $0) }.joined(separator: " ")
    }

    /// The same header, from keys made ready once (a dispatcher thread's):
    /// byte for byte what `header(id:timestamp:body:secrets:)` gives. Throws
    /// `cannotSign` when OpenSSL refuses, rather than send a wrong signature.
    public static func header(
        id: String, timestamp: Int64, body: String, keys: [WebhookSigningKey]
    )
        throws(WebhookSecretError) -> String
    {
        let stamp = String(timestamp)
        var entries: [String] = []
        for key in keys {
            do throws(HMACSHA256KeyError) {
                entries.append(entry(try key.mac.authenticate(id, ".", stamp, ".", body)))
            } catch {
                throw .cannotSign
            }
        }
        return entries.joined(separator: " ")
    }

    /// One `v1,<base64>` entry of the header.
    private static func entry(_ mac: [UInt8]) -> String { "\(version)," + Base64.encode(mac) }

    /// What a receiver does: true when the timestamp is within `tolerance` of
    /// `now` and one of the header's `v1` signatures is ours for `secret`
    /// (compared in constant time). Other versions are skipped, not failed,
    /// as the standard asks, so that a sender can add a scheme.
    public static func verify(
        header: String, id: String, timestamp: Int64, body: String, secret: WebhookSecret, now: Int64,
        tolerance: Int64 = defaultTolerance
    ) -> Bool {
        guard abs(now - timestamp) <= tolerance else { return false }
        let expected = mac(id: id, timestamp: timestamp, body: body, key: secret.key)
        for entry in header.split(separator: " ") {
            let parts = entry.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == version, let given = Base64.decode(parts[1]) else { continue }
            if HMACSHA256.constantTimeEqual(given, expected) { return true }
        }
        return false
    }

    private static func mac(id: String, timestamp: Int64, body: String, key: [UInt8]) -> [UInt8] {
        HMACSHA256.authenticate(message: "\(id).\(timestamp).\(body)".utf8, key: key)
    }
}

/// A secret made ready to sign many requests: its HMAC key set up once.
/// Not thread-safe (the key's context is re-initialized per message): a
/// dispatcher thread keeps its own, with its endpoints' other preparations.
public final class WebhookSigningKey {
    public let secret: WebhookSecret
    let mac: HMACSHA256Key

    public init(_ secret: WebhookSecret) throws(WebhookSecretError) {
        self.secret = secret
        do throws(HMACSHA256KeyError) {
            mac = try HMACSHA256Key(key: secret.key)
        } catch {
            throw .cannotSign
        }
    }
}
