import SwitchboardJSON

/// What `TokenMinter` writes into a token: the product's claims (docs/protocol.md,
/// "Authentication") with the registered names of RFC 7519 4.1.
public struct TokenClaims: Sendable, Equatable {
    /// `sub`: the user's id, at most 128 bytes for the verifier to accept it.
    public var subject: String
    /// `role`.
    public var role: Role
    /// `workspace_id`: UUID text.
    public var workspaceID: String
    /// `name`: omitted from the token when nil.
    public var name: String?
    /// `iat`, seconds since the epoch.
    public var issuedAt: Int64
    /// `exp`, seconds since the epoch.
    public var expiresAt: Int64
    /// `nbf`, seconds since the epoch: omitted from the token when nil.
    public var notBefore: Int64?
    /// `email` and `attrs`: a visitor's verified contact; omitted when nil.
    public var email: String?
    public var attrs: JSONObject?

    public init(
        subject: String, role: Role, workspaceID: String, name: String? = nil, issuedAt: Int64, expiresAt: Int64,
        notBefore: Int64? = nil, email: String? = nil, attrs: JSONObject? = nil
    ) {
        self.subject = subject
        self.role = role
        self.workspaceID = workspaceID
        self.name = name
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.notBefore = notBefore
        self.email = email
        self.attrs = attrs
    }
}
