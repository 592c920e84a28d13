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
    /// `email` and `attrs`: what the embedding application says it knows of the user (docs/protocol.md,
    /// "The agent's desk"), signed with the rest.
    var email: String?
    var attrs: JSONObject?

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
        self.email = try Self.email(claims["email"])
        self.attrs = try Self.attrs(claims["attrs"])

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

    /// `email`: optional, null allowed; a printable string of at most 254 bytes (an address's longest path).
    private static func email(_ value: JSONValue?) throws(TokenError) -> String? {
        guard let value, !value.isNull else { return nil }
        guard let email = value.stringValue else { throw .invalidClaim("email is not a string") }
        guard email.utf8.count <= 254 else { throw .invalidClaim("email is longer than 254 bytes") }
        guard ClaimText.isPrintable(email) else { throw .invalidClaim("email contains control characters") }
        return email
    }

    static let maxAttrsBytes = 3072

    /// `attrs`: optional, null allowed; an object of whatever the application wants its operators to see
    /// at most 3 KiB as JSON.
    private static func attrs(_ value: JSONValue?) throws(TokenError) -> JSONObject? {
        guard let value, !value.isNull else { return nil }
        guard let attrs = value.objectValue else { throw .invalidClaim("attrs is not an object") }
        // With name and email it must fit the session's contact (at most 4 KiB, migration 9).
        var writer = JSONWriter()
        writer.value(value)
        guard writer.bytes.count <= maxAttrsBytes else {
            throw .invalidClaim("attrs is longer than \(maxAttrsBytes) bytes as JSON")
        }
        return attrs.isEmpty ? nil : attrs
    }

    /// The verified contact a visitor's session carries (`contact.verified`): `{"name"?,"email"?,"attrs"?}`
    /// as JSON text, nil when the token says nothing of the kind or is not a visitor's.
    var verifiedContact: String? {
        guard role == .visitor, name != nil || email != nil || attrs != nil else { return nil }
        var writer = JSONWriter()
        writer.beginObject()
        if let name {
            writer.key("name")
            writer.string(name)
        }
        if let email {
            writer.key("email")
            writer.string(email)
        }
        if let attrs {
            writer.key("attrs")
            writer.value(.object(attrs))
        }
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// RFC 7519 2 allows a non-integer NumericDate; we accept only integer literals
    /// that fit Int64 (`1.0`, `1e9` and strings are refused) to keep comparisons exact.
    private static func numericDate(_ value: JSONValue, claim: String) throws(TokenError) -> Int64 {
        guard let seconds = value.int64Value else { throw .invalidClaim("\(claim) is not an integer") }
        return seconds
    }
}
