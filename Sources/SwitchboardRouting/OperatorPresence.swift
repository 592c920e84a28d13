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
    public let capacity: Int
    /// RFC 3339; nil when it never was assigned one.
    public let lastAssignedAt: String?

    public init(
        id: String, name: String?, role: String, status: OperatorStatus, connected: Bool, activeSessions: Int,
        capacity: Int, lastAssignedAt: String?
    ) {
        self.id = id
        self.name = name
        self.role = role
        self.status = status
        self.connected = connected
        self.activeSessions = activeSessions
        self.capacity = capacity
        self.lastAssignedAt = lastAssignedAt
    }

    /// Whether routing may give it a session now (ignoring the grace of a
    /// connection that just closed, which only the database knows).
    public var available: Bool { status == .online && connected && activeSessions < capacity }
}
