import SwitchboardIdentifiers
import SwitchboardJSON

/// The claims of a token whose signature has been checked, each validated for type
/// and form; the time claims are compared with the clock by `TokenVerifier`.
struct TokenPayload {
    static let limits = JSONLimits(maxDepth: 16, maxStringBytes: 4096, maxMembers: 64, maxTotalBytes: 8192)

    var subject: String
    var role: Role
    var workspaceID: String
    var name: String?
    var expiresAt: Int64
    var notBefore: Int64?
    var issuedAt: Int64?

    init(parsing bytes: [UInt8]) throws(TokenError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, limits: Self.limits)
        } catch {
            throw .malformed("payload is not valid JSON")
        }
        // RFC 7519 7.2 step 10: the claims set is a JSON object.
        guard let claims = value.objectValue else { throw .malformed("payload is not a JSON object") }

        // RFC 7519 4.1.2: sub is a case-sensitive string; we also bound and sanitize it.
        guard let subValue = claims["sub"] else { throw .invalidClaim("sub is missing") }
        guard let subject = subValue.stringValue else { throw .invalidClaim("sub is not a string") }
        guard !subject.isEmpty else { throw .invalidClaim("sub is empty") }
        guard subject.utf8.count <= ClaimText.maxBytes else {
            throw .invalidClaim("sub is longer than \(ClaimText.maxBytes) bytes")
        }
        guard ClaimText.isPrintable(subject) else { throw .invalidClaim("sub contains control characters") }
        self.subject = subject

        guard let roleValue = claims["role"] else { throw .invalidClaim("role is missing") }
        guard let roleText = roleValue.stringValue else { throw .invalidClaim("role is not a string") }
        guard let role = Role(rawValue: roleText) else { throw .invalidClaim("role is not visitor, operator or admin") }
        self.role = role

        guard let workspaceValue = claims["workspace_id"] else { throw .invalidClaim("workspace_id is missing") }
        guard let workspaceText = workspaceValue.stringValue else {
            throw .invalidClaim("workspace_id is not a string")
        }
        guard let workspaceID = UUIDText.canonical(workspaceText) else {
            throw .invalidClaim("workspace_id is not a UUID")
        }
        self.workspaceID = workspaceID

        self.name = try Self.name(claims["name"])

        // RFC 7519 4.1.4: exp is required here; every session must end.
        guard let exp = claims["exp"] else { throw .invalidClaim("exp is missing") }
        self.expiresAt = try Self.numericDate(exp, claim: "exp")
        self.notBefore = try claims["nbf"].map { (v) throws(TokenError) in try Self.numericDate(v, claim: "nbf") }
        self.issuedAt = try claims["iat"].map { (v) throws(TokenError) in try Self.numericDate(v, claim: "iat") }
    }

    /// `name` is optional and may be null; when present it is shown to other clients.
    private static func name(_ value: JSONValue?) throws(TokenError) -> String? {
        guard let value, !value.isNull else { return nil }
        guard let name = value.stringValue else { throw .invalidClaim("name is not a string") }
        guard name.utf8.count <= ClaimText.maxBytes else {
            throw .invalidClaim("name is longer than \(ClaimText.maxBytes) bytes")
        }
        guard ClaimText.isPrintable(name) else { throw .invalidClaim("name contains control characters") }
        return name
    }

    /// RFC 7519 2 allows a non-integer NumericDate; we accept only integer literals
    /// that fit Int64 (`1.0`, `1e9` and strings are refused) to keep comparisons exact.
    private static func numericDate(_ value: JSONValue, claim: String) throws(TokenError) -> Int64 {
        guard let seconds = value.int64Value else { throw .invalidClaim("\(claim) is not an integer") }
        return seconds
    }
}
