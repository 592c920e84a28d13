/// An operator a queued session may go to, as the routing pass read it:
/// chosen status `online`, connected (on some node, or within its grace),
/// and its load against its capacity. Where candidates come from is the
/// query's business (skills or teams later narrow it); the policy only
/// picks among them.
public struct RoutingCandidate: Sendable, Equatable {
    public let operatorID: String
    /// Its display name, for the assignment's event and `assigned_operator.name`.
    public let name: String?
    /// `operator` or `admin`: the sender role of its assignment's event.
    public let role: String
    /// Open sessions assigned to it.
    public var load: Int
    /// Open sessions it may hold at most.
    public let capacity: Int
    /// When it was last given a session (microseconds since the epoch); nil: never.
    public var lastAssignedAt: Int64?

    public init(
        operatorID: String, name: String? = nil, role: String = "operator", load: Int, capacity: Int,
        lastAssignedAt: Int64? = nil
    ) {
        self.operatorID = operatorID
        self.name = name
        self.role = role
        self.load = load
        self.capacity = capacity
        self.lastAssignedAt = lastAssignedAt
    }

    /// Whether one more session fits under its capacity.
    public var hasRoom: Bool { load < capacity }
}

/// A session waiting in its workspace's queue.
public struct QueuedSession: Sendable, Equatable {
    public let id: String
    /// Since when its visitor waits (microseconds since the epoch): the queue's order, oldest first.
    public let waitingSince: Int64

    public init(id: String, waitingSince: Int64) {
        self.id = id
        self.waitingSince = waitingSince
    }
}
