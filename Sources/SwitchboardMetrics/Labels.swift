/// The `role` label of `switchboard_connections`.
public enum ConnectionRole: String, Sendable, CaseIterable {
    case visitor
    case `operator`
    case admin
    case unauthenticated
}

/// The `reason` label of `switchboard_connections_refused_total`: why a
/// connection was turned away before it was served.
public enum ConnectionRefusal: String, Sendable, CaseIterable {
    /// `server.max_connections` (this loop's share of it) reached: 503.
    case maxConnections = "max_connections"
    /// `server.max_connections_per_ip` reached for the client's address: 429.
    case perIPConnections = "per_ip_connections"
    /// The address's `server.connection_rate_per_ip` bucket is empty: 429.
    case perIPRate = "per_ip_rate"
}

/// The `component` label of the database counters.
public enum DatabaseComponent: String, Sendable, CaseIterable {
    case writer
    case reader
}

/// The gateway's HTTP routes: what its router maps each path to, and the
/// `route` label of `switchboard_http_requests_total` (`.other`: no route matched).
public enum HTTPRoute: String, Sendable, CaseIterable {
    case healthz
    case readyz
    case metrics
    case conversations
    case messages
    case sessionPatch = "session_patch"
    case sessionDelete = "session_delete"
    case analytics
    case operators
    case operatorPatch = "operator_patch"
    case businessHours = "business_hours"
    case businessHoursPut = "business_hours_put"
    /// `POST /api/v1/sessions/{id}/attachments`
    case attachmentUpload = "attachment_upload"
    /// `GET /api/v1/attachments/{id}` (and HEAD)
    case attachment
    /// `GET /api/v1/attachments/{id}/thumbnail` (and HEAD)
    case attachmentThumbnail = "attachment_thumbnail"
    /// `GET /api/v1/webhooks`
    case webhooks
    /// `POST /api/v1/webhooks`
    case webhookCreate = "webhook_create"
    /// `GET /api/v1/webhooks/{id}`
    case webhook
    /// `PATCH /api/v1/webhooks/{id}`
    case webhookPatch = "webhook_patch"
    /// `DELETE /api/v1/webhooks/{id}`
    case webhookDelete = "webhook_delete"
    /// `POST /api/v1/webhooks/{id}/test`
    case webhookTest = "webhook_test"
    /// `POST /api/v1/webhooks/{id}/rotate-secret`
    case webhookRotateSecret = "webhook_rotate_secret"
    /// `GET /api/v1/webhooks/{id}/deliveries`
    case webhookDeliveries = "webhook_deliveries"
    /// `POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/retry`
    case webhookDeliveryRetry = "webhook_delivery_retry"
    /// `POST /api/v1/webhooks/{id}/deliveries/retry`
    case webhookDeliveriesRetry = "webhook_deliveries_retry"
    /// `GET /api/v1/canned-replies`
    case cannedReplies = "canned_replies"
    /// `POST /api/v1/canned-replies`
    case cannedReplyCreate = "canned_reply_create"
    /// `PATCH /api/v1/canned-replies/{id}`
    case cannedReplyPatch = "canned_reply_patch"
    /// `DELETE /api/v1/canned-replies/{id}`
    case cannedReplyDelete = "canned_reply_delete"
    /// `GET /api/v1/sessions/{id}/transcript`
    case transcript
    /// `GET /api/v1/sessions/{id}`
    case session
    /// `GET /api/v1/workspace`
    case workspace
    /// `PATCH /api/v1/workspace`
    case workspacePatch = "workspace_patch"
    /// `GET /api/v1/search`
    case search
    case ws
    case echo
    /// The browser clients' files (`/`, `/sdk/`, `/widget/`, `/console/`).
    case web
    case devToken = "dev_token"
    /// CORS preflight (OPTIONS) of the HTTP API.
    case preflight
    case other

    var index: Int {
        switch self {
        case .healthz: 0
        case .readyz: 1
        case .metrics: 2
        case .conversations: 3
        case .messages: 4
        case .sessionPatch: 5
        case .sessionDelete: 6
        case .analytics: 7
        case .ws: 8
        case .echo: 9
        case .web: 10
        case .devToken: 11
        case .preflight: 12
        case .other: 13
        case .operators: 14
        case .operatorPatch: 15
        case .businessHours: 16
        case .businessHoursPut: 17
        case .attachmentUpload: 18
        case .attachment: 19
        case .attachmentThumbnail: 20
        case .webhooks: 21
        case .webhookCreate: 22
        case .webhook: 23
        case .webhookPatch: 24
        case .webhookDelete: 25
        case .webhookTest: 26
        case .webhookRotateSecret: 27
        case .webhookDeliveries: 28
        case .webhookDeliveryRetry: 29
        case .webhookDeliveriesRetry: 30
        case .cannedReplies: 31
        case .cannedReplyCreate: 32
        case .cannedReplyPatch: 33
        case .cannedReplyDelete: 34
        case .transcript: 35
        case .session: 36
        case .workspace: 37
        case .workspacePatch: 38
        case .search: 39
        }
    }
}

/// The `outcome` label of `switchboard_attachment_uploads_total`: how an
/// upload ended, stored or the reason it was refused.
public enum AttachmentUploadOutcome: String, Sendable, CaseIterable {
    /// Committed: 201.
    case stored
    /// Over `attachments.max_bytes`, or the session's quota: 413.
    case tooLarge = "too_large"
    /// A type not allowed, a declared type that is not the sniffed one, a refused image: 415.
    case unsupportedType = "unsupported_type"
    /// Over `attachments.uploads_per_minute` for the connection or the address: 429.
    case rateLimited = "rate_limited"
    /// No in-flight budget, workers or readers free: 503 with Retry-After.
    case overloaded
    /// No token, or a bad one: 401.
    case unauthorized
    /// The session is not the uploader's: 403.
    case forbidden
    /// No such session, or it was deleted: 404.
    case notFound = "not_found"
    /// A malformed request (no file name, a broken body): 400.
    case badRequest = "bad_request"
    /// The client went away or stalled mid-body; nothing is answered.
    case aborted
    /// The database or the disk failed: 503.
    case failed
}

/// The `code` label values of `switchboard_closes_total`, in rendering order.
enum CloseCodeLabel {
    /// 1006 is never sent (RFC 6455 reserves it): it counts connections dropped
    /// without a close frame, a peer silent past its heartbeat.
    static let values = ["1000", "1001", "1003", "1006", "1008", "1009", "4001", "4008", "other"]

    static func index(of code: UInt16) -> Int {
        switch code {
        case 1000: 0
        case 1001: 1
        case 1003: 2
        case 1006: 3
        case 1008: 4
        case 1009: 5
        case 4001: 6
        case 4008: 7
        default: 8
        }
    }
}
