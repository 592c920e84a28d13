import SwitchboardJSON
import SwitchboardReaders

/// Bodies of the webhook API (docs/webhooks.md, "Management API"). An
/// endpoint is `{"id","url","description","events","enabled",
/// "disabled_reason","failing_since","previous_secret_expires_at",
/// "created_at","updated_at"}`, plus `"secret"` in the two answers that
/// show one (create, rotate) and never elsewhere.
enum WebhookJSON {
    /// `{"webhooks":[...]}`
    static func list(_ endpoints: [WebhookEndpoint]) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("webhooks")
        writer.beginArray()
        for endpoint in endpoints { self.endpoint(endpoint, secret: nil, &writer) }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// `{"webhook":{...}}`, with `secret` when it is shown (once).
    static func one(_ endpoint: WebhookEndpoint, secret: String? = nil) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("webhook")
        self.endpoint(endpoint, secret: secret, &writer)
        writer.endObject()
        return writer.bytes
    }

    /// `{"deliveries":[...],"next_cursor":"..."|null}`
    static func deliveries(_ deliveries: [WebhookDelivery], next: Int64?) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("deliveries")
        writer.beginArray()
        for delivery in deliveries { self.delivery(delivery, &writer) }
        writer.endArray()
        writer.key("next_cursor")
        optional(next.map(String.init), &writer)
        writer.endObject()
        return writer.bytes
    }

    /// `{"delivery":{...}}`
    static func delivery(_ delivery: WebhookDelivery) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("delivery")
        self.delivery(delivery, &writer)
        writer.endObject()
        return writer.bytes
    }

    /// `{"retried":n}`
    static func retried(_ count: Int) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("retried")
        writer.int(count)
        writer.endObject()
        return writer.bytes
    }

    /// `{"event":{"id":"evt_...","type":"webhook.test"}}`
    static func event(id: String, type: String) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("event")
        writer.beginObject()
        writer.key("id")
        writer.string(id)
        writer.key("type")
        writer.string(type)
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    private static func endpoint(_ endpoint: WebhookEndpoint, secret: String?, _ writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(endpoint.id)
        writer.key("url")
        writer.string(endpoint.url)
        writer.key("description")
        optional(endpoint.description, &writer)
        writer.key("events")
        writer.beginArray()
        for type in endpoint.events { writer.string(type.rawValue) }
        writer.endArray()
        writer.key("enabled")
        writer.bool(endpoint.enabled)
        writer.key("disabled_reason")
        optional(endpoint.disabledReason, &writer)
        writer.key("failing_since")
        optional(endpoint.failingSince, &writer)
        writer.key("previous_secret_expires_at")
        optional(endpoint.previousSecretExpiresAt, &writer)
        writer.key("created_at")
        writer.string(endpoint.createdAt)
        writer.key("updated_at")
        writer.string(endpoint.updatedAt)
        if let secret {
            writer.key("secret")
            writer.string(secret)
        }
        writer.endObject()
    }

    private static func delivery(_ delivery: WebhookDelivery, _ writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(delivery.id)
        writer.key("event_id")
        writer.string(delivery.eventID)
        writer.key("event_type")
        writer.string(delivery.eventType)
        writer.key("status")
        writer.string(delivery.status.rawValue)
        writer.key("attempts")
        writer.int(delivery.attempts)
        writer.key("status_code")
        if let code = delivery.lastStatusCode { writer.int(code) } else { writer.null() }
        writer.key("duration_ms")
        if let duration = delivery.lastDurationMilliseconds { writer.int(duration) } else { writer.null() }
        writer.key("error")
        optional(delivery.lastError, &writer)
        writer.key("response_head")
        optional(delivery.lastResponseHead, &writer)
        writer.key("last_attempt_at")
        optional(delivery.lastAttemptAt, &writer)
        writer.key("next_attempt_at")
        optional(delivery.nextAttemptAt, &writer)
        writer.key("created_at")
        writer.string(delivery.createdAt)
        writer.endObject()
    }

    private static func optional(_ value: String?, _ writer: inout JSONWriter) {
        if let value { writer.string(value) } else { writer.null() }
    }
}
