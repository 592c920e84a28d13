/// What a client may do, from its token's `role` claim (docs/protocol.md, "Authentication").
public enum Role: String, Sendable, Equatable, CaseIterable {
    case visitor
    case `operator`
    case admin

    /// Operators and admins see every session of their workspace; visitors only their own.
    public var isStaff: Bool { self != .visitor }
}

/// Who a verified token says the client is.
public struct Identity: Sendable, Equatable {
    /// The `sub` claim: the user's id, at most 128 bytes.
    public var id: String
    public var role: Role
    /// The `workspace_id` claim, as lower-case canonical UUID text.
    public var workspaceID: String
    /// The `name` claim: shown as the operator name on messages.
    public var name: String?
    /// The `exp` claim, seconds since the epoch.
    public var expiresAt: Int64
    /// A visitor's verified contact, `{"name"?,"email"?,"attrs"?}` as JSON text, from the token's
    /// `name`, `email` and `attrs` claims: stored on the sessions it opens as `contact.verified`.
    public var contact: String?

    public init(
        id: String, role: Role, workspaceID: String, name: String?, expiresAt: Int64, contact: String? = nil
    ) {
        self.id = id
        self.role = role
        self.workspaceID = workspaceID
        self.name = name
        self.expiresAt = expiresAt
        self.contact = contact
    }
}
