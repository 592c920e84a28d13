import SwitchboardCrypto
import SwitchboardJSON

/// Issues HS256 tokens (for tests, the operator CLI and development logins). It does
/// not validate the claims: a verifier is the only judge of what a token may say.
public enum TokenMinter {
    /// RFC 7519 5.1 / RFC 7515 4.1.1: the only header we write or accept.
    private static let encodedHeader = Base64.encodeURLSafe(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))

    public static func mint(_ claims: TokenClaims, secret: [UInt8]) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("sub")
        writer.string(claims.subject)
        writer.key("role")
        writer.string(claims.role.rawValue)
        writer.key("workspace_id")
        writer.string(claims.workspaceID)
        if let name = claims.name {
            writer.key("name")
            writer.string(name)
        }
        writer.key("iat")
        writer.int(claims.issuedAt)
        writer.key("exp")
        writer.int(claims.expiresAt)
        if let notBefore = claims.notBefore {
            writer.key("nbf")
            writer.int(notBefore)
        }
        if let email = claims.email {
            writer.key("email")
            writer.string(email)
        }
        if let attrs = claims.attrs {
            writer.key("attrs")
            writer.value(.object(attrs))
        }
        writer.endObject()

        // RFC 7515 7.1: the signing input is the two unpadded base64url parts joined by ".".
        let signingInput = encodedHeader + "." + Base64.encodeURLSafe(writer.bytes)
        let signature = HMACSHA256.authenticate(message: Array(signingInput.utf8), key: secret)
        return signingInput + "." + Base64.encodeURLSafe(signature)
    }

    /// The secret is the UTF-8 bytes of `secret`.
    public static func mint(_ claims: TokenClaims, secret: String) -> String {
        mint(claims, secret: Array(secret.utf8))
    }
}
