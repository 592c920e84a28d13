/// Where the dispatcher gets its work and puts its results: the outbox's
/// deliveries in PostgreSQL in the server, a fake in tests. Every call may
/// block (it is a database round trip); only dispatcher threads make them.
public protocol DeliveryQueue: Sendable {
    /// Up to `limit` deliveries that are due, each leased to the caller for
    /// `leaseSeconds`: until then no other claimer (on any node) gets it,
    /// after it (the claimer died) it is due again. Endpoints in `busy` are
    /// skipped: the caller is already at its bound for them.
    func claim(limit: Int, leaseSeconds: Int, skipping busy: Set<String>) throws -> [DueDelivery]

    /// Records how attempts ended and, for each that failed, when the next is
    /// due (`nextAttemptAt`; nil: the delivery has failed for good), all or
    /// none. Ends their leases. One call for many outcomes: a dispatcher
    /// thread records what ended since its last call together, so that a busy
    /// endpoint costs the database one round trip per batch, not per request.
    func record(_ outcomes: [DeliveryOutcome]) throws

    /// Gives back deliveries this caller holds (claimed or handed over) and
    /// never attempted: each is due again at once, its lease ended and the
    /// attempt its claim counted taken back, so that deliveries let go unsent
    /// (an endpoint too slow to start them within their lease, a dispatcher
    /// stopping) never use up their retries. A delivery whose lease has
    /// already ended is left as it is (another claimer may hold it now).
    func release(_ deliveries: [DueDelivery]) throws
}

extension DeliveryQueue {
    /// One attempt's outcome.
    public func record(_ outcome: DeliveryOutcome) throws { try record([outcome]) }
}

/// One delivery of one event to one endpoint, as claimed.
public struct DueDelivery: Sendable, Equatable {
    /// The delivery's own id (one per event and endpoint).
    public var id: String
    /// The event's id (`evt_...`): the `webhook-id` header, the receiver's idempotency key.
    public var eventID: String
    public var endpointID: String
    public var url: String
    /// The secrets to sign with (`whsec_...`): the current one, and during a
    /// rotation's overlap the previous one too.
    public var secrets: [String]
    /// The JSON body, exactly as it was written with the event: retries send the same bytes.
    public var body: String
    /// Attempts made before this one (0 for the first).
    public var attempt: Int
    /// When the event committed, seconds since the epoch: the delivery latency
    /// histogram measures from it to the 2xx.
    public var eventCreatedAt: Double
    /// The handoff it came in, for a delivery handed over at birth: it has no
    /// row yet, and its outcome (or its giving back) writes it (migration 39).
    /// nil: claimed, its row written before.
    public var handoffID: String?

    public init(
        id: String, eventID: String, endpointID: String, url: String, secrets: [String], body: String, attempt: Int,
        eventCreatedAt: Double, handoffID: String? = nil
    ) {
        self.id = id
        self.eventID = eventID
        self.endpointID = endpointID
        self.url = url
        self.secrets = secrets
        self.body = body
        self.attempt = attempt
        self.eventCreatedAt = eventCreatedAt
        self.handoffID = handoffID
    }
}

/// How one attempt ended.
public struct DeliveryOutcome: Sendable, Equatable {
    public var deliveryID: String
    public var endpointID: String
    /// The event delivered, written with the delivery's row when the attempt was of one handed over at birth.
    public var eventID: String
    /// `DueDelivery.handoffID`: set, the outcome writes the delivery's row.
    public var handoffID: String?
    /// Any 2xx.
    public var succeeded: Bool
    /// The HTTP status, nil when no answer came (refused, timed out, TLS, a private address).
    public var statusCode: Int?
    public var durationMilliseconds: Int
    /// Why it failed, for the delivery log; never holds a secret.
    public var error: String?
    /// The first bytes of the response body (at most `responseHeadBytes`), for the delivery log.
    public var responseHead: String
    /// Seconds since the epoch of the next attempt; nil after success or when retries are exhausted.
    public var nextAttemptAt: Double?

    public static let responseHeadBytes = 1024

    public init(
        deliveryID: String, endpointID: String, eventID: String, handoffID: String? = nil, succeeded: Bool,
        statusCode: Int?, durationMilliseconds: Int, error: String?, responseHead: String, nextAttemptAt: Double?
    ) {
        self.deliveryID = deliveryID
        self.endpointID = endpointID
        self.eventID = eventID
        self.handoffID = handoffID
        self.succeeded = succeeded
        self.statusCode = statusCode
        self.durationMilliseconds = durationMilliseconds
        self.error = error
        self.responseHead = responseHead
        self.nextAttemptAt = nextAttemptAt
    }
}
