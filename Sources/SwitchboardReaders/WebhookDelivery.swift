/// One delivery of one event to one endpoint, as the delivery log shows it.
public struct WebhookDelivery: Sendable, Equatable {
    public enum Status: String, Sendable {
        /// Due now, or at `nextAttemptAt`.
        case pending
        /// A 2xx came back.
        case succeeded
        /// The retries ran out (an admin may still retry it).
        case failed
    }

    /// The delivery's id (digits).
    public var id: String
    /// `evt_...`: the `webhook-id` header the receiver saw.
    public var eventID: String
    public var eventType: String
    public var status: Status
    /// Attempts made so far (a claim counts one).
    public var attempts: Int
    /// The last attempt's HTTP status; nil before any, or when no answer came.
    public var lastStatusCode: Int?
    public var lastDurationMilliseconds: Int?
    public var lastError: String?
    /// The first bytes of the last response's body.
    public var lastResponseHead: String?
    /// RFC 3339 times.
    public var lastAttemptAt: String?
    /// When the next attempt is due (pending deliveries only).
    public var nextAttemptAt: String?
    public var createdAt: String

    public init(
        id: String, eventID: String, eventType: String, status: Status, attempts: Int, lastStatusCode: Int?,
        lastDurationMilliseconds: Int?, lastError: String?, lastResponseHead: String?, lastAttemptAt: String?,
        nextAttemptAt: String?, createdAt: String
    ) {
        self.id = id
        self.eventID = eventID
        self.eventType = eventType
        self.status = status
        self.attempts = attempts
        self.lastStatusCode = lastStatusCode
        self.lastDurationMilliseconds = lastDurationMilliseconds
        self.lastError = lastError
        self.lastResponseHead = lastResponseHead
        self.lastAttemptAt = lastAttemptAt
        self.nextAttemptAt = nextAttemptAt
        self.createdAt = createdAt
    }
}

/// One endpoint's share of the outbox, for the metrics.
public struct WebhookOutboxGauge: Sendable, Equatable {
    public var endpointID: String
    public var workspaceID: String
    /// Deliveries not yet succeeded or failed (due now or later).
    public var pending: Int
    /// Seconds since the oldest due delivery fell due; 0 when none is due.
    public var oldestDueSeconds: Double

    public init(endpointID: String, workspaceID: String, pending: Int, oldestDueSeconds: Double) {
        self.endpointID = endpointID
        self.workspaceID = workspaceID
        self.pending = pending
        self.oldestDueSeconds = oldestDueSeconds
    }
}
