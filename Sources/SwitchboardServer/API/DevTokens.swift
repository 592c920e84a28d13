import SwitchboardAuth
import SwitchboardChat
import SwitchboardCrypto
import SwitchboardHTTP
import SwitchboardIdentifiers
import SwitchboardJSON
import SwitchboardSystem

/// `POST /dev/token` (docs/protocol.md, "Browser clients"): a signed token for
/// whoever asks, so that the widget demo and the console work on a fresh
/// checkout with nothing else set up. Routed only with `auth.dev_tokens`.
///
/// Body: `{"role": "visitor"|"operator"|"admin", "name"?, "sub"?, "workspace_id"?, "ttl_s"?, "email"?,
/// "attrs"?}` (`email` and `attrs`: a visitor's verified contact, as an embedding application signs it);
/// answer: `{"token": "...", "expires_at": "RFC 3339"}`. `sub` defaults to a
/// new random id, `workspace_id` to `auth.dev_workspace_id`, `ttl_s` (60 to
/// 86,400, an addition for testing expiry) to `auth.dev_token_ttl_s`.
struct DevTokens {
    let secret: String
    let workspaceID: String
    let ttlSeconds: Int

    init(_ configuration: Configuration) {
        secret = configuration.jwtSecret
        workspaceID = configuration.devWorkspaceID
        ttlSeconds = configuration.devTokenTTLSeconds
    }

    func answer(_ request: HTTPRequest) -> HTTPResponse {
        do throws(ChatError) {
            return try mint(request)
        } catch {
            return .api(error)
        }
    }

    private func mint(_ request: HTTPRequest) throws(ChatError) -> HTTPResponse {
        let body = try JSONBody.object(
            request, maxBytes: 4096, allowed: ["role", "name", "sub", "workspace_id", "ttl_s", "email", "attrs"])
        guard let roleText = try JSONBody.string(body, "role") else {
            throw ChatError(.badRequest, "\"role\" is required: \"visitor\", \"operator\" or \"admin\"")
        }
        guard let role = Role(rawValue: roleText) else {
            throw ChatError(.badRequest, "\"role\" must be \"visitor\", \"operator\" or \"admin\"")
        }
        let name = try JSONBody.string(body, "name")
        if let name, name.utf8.count > 128 { throw ChatError(.badRequest, "\"name\" is over 128 bytes") }
        let subject = try JSONBody.string(body, "sub") ?? "\(role.rawValue)-\(Self.randomID())"
        guard !subject.isEmpty, subject.utf8.count <= 128 else {
            throw ChatError(.badRequest, "\"sub\" must be 1 to 128 bytes")
        }
        var workspace = workspaceID
        if let given = try JSONBody.string(body, "workspace_id") {
            guard let canonical = UUIDText.canonical(given) else {
                throw ChatError(.badRequest, "\"workspace_id\" is not a UUID")
            }
            workspace = canonical
        }
        var ttl = Int64(ttlSeconds)
        if let raw = body["ttl_s"], !raw.isNull {
            guard let seconds = raw.int64Value, (60...86_400).contains(seconds) else {
                throw ChatError(.badRequest, "\"ttl_s\" must be an integer from 60 to 86400")
            }
            ttl = seconds
        }
        let email = try JSONBody.string(body, "email")
        if let email, email.utf8.count > 254 { throw ChatError(.badRequest, "\"email\" is over 254 bytes") }
        var attrs: JSONObject?
        if let raw = body["attrs"], !raw.isNull {
            guard let object = raw.objectValue else { throw ChatError(.badRequest, "\"attrs\" must be an object") }
            attrs = object
        }
        let now = UnixClock.nowSeconds()
        let token = TokenMinter.mint(
            TokenClaims(
                subject: subject, role: role, workspaceID: workspace, name: name, issuedAt: now, expiresAt: now + ttl,
                email: email, attrs: attrs),
            secret: secret)
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("token")
        writer.string(token)
        writer.key("expires_at")
        writer.string(Self.rfc3339(now + ttl))
        writer.key("sub")
        writer.string(subject)
        writer.key("workspace_id")
        writer.string(workspace)
        writer.endObject()
        var response = HTTPResponse.apiJSON(.ok, writer.bytes)
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }

    private static func randomID() -> String {
        SecureRandom.bytes(8).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// "2026-11-23T09:00:00Z".
    static func rfc3339(_ epochSeconds: Int64) -> String {
        let days = Int(epochSeconds / 86_400)
        let second = Int(epochSeconds % 86_400)
        let (year, month, day) = ChatTimestamp.civil(fromDays: days)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(second / 3600)):\(two(second % 3600 / 60)):\(two(second % 60))Z"
    }
}
