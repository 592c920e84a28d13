/// An operator or admin of a workspace, as `GET /api/v1/operators` lists it.
public struct OperatorInfo: Sendable, Equatable {
    public let id: String
    public let name: String?
    public let role: String
    /// RFC 3339: its latest connection.
    public let lastSeenAt: String
    /// Sessions assigned to it and not closed.
    public let activeSessions: Int64

    public init(id: String, name: String?, role: String, lastSeenAt: String, activeSessions: Int64) {
        self.id = id
        self.name = name
        self.role = role
        self.lastSeenAt = lastSeenAt
        self.activeSessions = activeSessions
    }
}
