/// One request header.
public struct WebhookHeader: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// The headers of a delivery's request (PROTOCOL.md, "Webhooks"): the event id
/// as `webhook-id` (the receiver's idempotency key, the same on every retry),
/// the send time as `webhook-timestamp`, and a signature per secret.
public enum WebhookRequestHeaders {
    public static let contentType = "application/json"
    public static let userAgent = "Switchboard-Webhooks/1"

    /// Throws when a stored secret cannot be read or signed with (the error
    /// never holds it).
    public static func of(_ delivery: DueDelivery, timestamp: Int64) throws(WebhookSecretError) -> [WebhookHeader] {
        try of(
            delivery, timestamp: timestamp,
            keys: secrets(of: delivery).map { secret throws(WebhookSecretError) in
                try WebhookSigningKey(secret)
            })
    }

    /// The delivery's secrets, decoded: at least one, or the reason none can sign.
    public static func secrets(of delivery: DueDelivery) throws(WebhookSecretError) -> [WebhookSecret] {
        var secrets: [WebhookSecret] = []
        for text in delivery.secrets { secrets.append(try WebhookSecret(parsing: text)) }
        guard !secrets.isEmpty else { throw .missing }
        return secrets
    }

    /// The headers, signed with the delivery's secrets made ready to sign (a
    /// dispatcher thread's, kept while the endpoint's secrets stay the same).
    public static func of(
        _ delivery: DueDelivery, timestamp: Int64, keys: [WebhookSigningKey]
    )
        throws(WebhookSecretError) -> [WebhookHeader]
    {
        [
            WebhookHeader("content-type", contentType),
            WebhookHeader("user-agent", userAgent),
            WebhookHeader("webhook-id", delivery.eventID),
            WebhookHeader("webhook-timestamp", String(timestamp)),
            WebhookHeader(
                "webhook-signature",
                try WebhookSignature.header(id: delivery.eventID, timestamp: timestamp, body: delivery.body, keys: keys)
            ),
        ]
    }
}
