import SwitchboardWebhooks

/// A webhook endpoint as the management API shows it: never its secrets
/// (`WebhookEndpointSecret` carries one, once, when it is made).
public struct WebhookEndpoint: Sendable, Equatable {
    /// UUID text.
    public var id: String
    public var url: String
    public var description: String?
    /// The event types it asked for.
    public var events: [WebhookEventType]
    /// False when an admin turned it off or when it failed for longer than
    /// `webhooks.disable_after_hours` (then `disabledReason` says so).
    public var enabled: Bool
    public var disabledReason: String?
    /// RFC 3339: since its first failure after its last success; nil while it succeeds.
    public var failingSince: String?
    /// RFC 3339: until when deliveries are also signed with the secret a rotation replaced.
    public var previousSecretExpiresAt: String?
    public var createdAt: String
    public var updatedAt: String

    public init(
        id: String, url: String, description: String?, events: [WebhookEventType], enabled: Bool,
        disabledReason: String?, failingSince: String?, previousSecretExpiresAt: String?, createdAt: String,
        updatedAt: String
    ) {
        self.id = id
        self.url = url
        self.description = description
        self.events = events
        self.enabled = enabled
        self.disabledReason = disabledReason
        self.failingSince = failingSince
        self.previousSecretExpiresAt = previousSecretExpiresAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// What creating an endpoint stores.
public struct NewWebhookEndpoint: Sendable, Equatable {
    public var url: String
    public var description: String?
    public var events: [WebhookEventType]
    /// `whsec_...`, made by the caller; stored, and shown to the admin once.
    public var secret: String

    public init(url: String, description: String?, events: [WebhookEventType], secret: String) {
        self.url = url
        self.description = description
        self.events = events
        self.secret = secret
    }
}

/// A change of an endpoint; nil members stay as they are.
public struct WebhookEndpointChange: Sendable, Equatable {
    public var url: String?
    public var events: [WebhookEventType]?
    /// True also clears `disabledReason` and `failingSince`: the admin says the receiver is back.
    public var enabled: Bool?
    /// `.some(nil)` removes the description.
    public var description: String??

    public init(
        url: String? = nil, events: [WebhookEventType]? = nil, enabled: Bool? = nil, description: String?? = nil
    ) {
        self.url = url
        self.events = events
        self.enabled = enabled
        self.description = description
    }

    public var isEmpty: Bool { url == nil && events == nil && enabled == nil && description == nil }
}
