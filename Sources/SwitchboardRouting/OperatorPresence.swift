/// The status an operator chose: it outlives its connections.
public enum OperatorStatus: String, Sendable, Equatable, CaseIterable {
    /// Takes new sessions (while connected and below capacity).
    case online
    /// Keeps its sessions, takes no new ones.
    case away
    /// Signed off: its open sessions go back to the queue (`routing.requeue_on_offline`).
    case offline
}

/// One operator as routing sees it: what it chose, whether it is
/// connected anywhere, and its load against its capacity (`presence`
/// frames, `GET /api/v1/operators`).
public struct OperatorPresence: Sendable, Equatable {
    public let id: String
    public let name: String?
    /// `operator` or `admin`.
    public let role: String
    public let status: OperatorStatus
    /// At least one connection open on a node that answers its heartbeat.
    public let connected: Bool
    /// Open sessions assigned to it.
    public let activeSessions: Int
    /// Its own capacity, or `routing.max_sessions_per_operator` when it has none.
    public let capacity: Int
    /// It has no capacity of its own: `capacity` is the gateway's default.
    public let capacityIsDefault: Bool
    /// RFC 3339; nil when it never was assigned one.
    public let lastAssignedAt: String?
    /// RFC 3339: its latest connection (nil where the reader did not ask).
    public let lastSeenAt: String?

    public init(
        id: String, name: String?, role: String, status: OperatorStatus, connected: Bool, activeSessions: Int,
        capacity: Int, lastAssignedAt: String?, capacityIsDefault: Bool = false, lastSeenAt: String? = nil
    ) {
        self.id = id
        self.name = name
        self.role = role
        self.status = status
        self.connected = connected
        self.activeSessions = activeSessions
        self.capacity = capacity
        self.lastAssignedAt = lastAssignedAt
        self.capacityIsDefault = capacityIsDefault
        self.lastSeenAt = lastSeenAt
    }

    /// Whether routing may give it a session now (ignoring the grace of a
    /// connection that just closed, which only the database knows).
    public var available: Bool { status == .online && connected && activeSessions < capacity }
}
