/// Someone who sends, types or reads in a session, as frames show them.
public struct Participant: Sendable, Equatable {
    public var id: String
    /// `visitor`, `operator` or `admin`; legacy rows may hold other roles, kept as stored.
    public var role: String
    public var name: String?

    public init(id: String, role: String, name: String?) {
        self.id = id
        self.role = role
        self.name = name
    }
}
