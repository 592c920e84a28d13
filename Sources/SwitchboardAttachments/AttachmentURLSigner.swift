import SwitchboardCrypto

/// Mints and checks the signed, expiring URLs attachments are served from
/// (docs/attachments.md, "Signed URLs"):
/// `/api/v1/attachments/{id}[/thumbnail]?exp=E&sig=S`, where `S` is base64url,
/// unpadded, of HMAC-SHA256(K, "{id}.{variant}.{E}") and K = HMAC-SHA256(key:
/// the JWT secret, message: "switchboard attachment url v1"). Deriving K keeps
/// a URL's signature from ever being valid as anything else signed with the
/// JWT secret.
public struct AttachmentURLSigner: Sendable {
    private let key: [UInt8]

    public init(jwtSecret: [UInt8]) {
        key = HMACSHA256.authenticate(message: Array("switchboard attachment url v1".utf8), key: jwtSecret)
    }

    /// The path and query of the URL that serves `variant` of attachment `id`
    /// until `expires` (Unix seconds). `id` is a UUID: nothing in it needs escaping.
    public func path(id: String, variant: AttachmentVariant, expires: Int64) -> String {
        let suffix = variant == .thumbnail ? "/thumbnail" : ""
        return
            "/api/v1/attachments/\(id)\(suffix)?exp=\(expires)&sig=\(signature(id: id, variant: variant, expires: expires))"
    }

    /// The `sig` of a URL: base64url without padding, 43 characters.
    public func signature(id: String, variant: AttachmentVariant, expires: Int64) -> String {
        Base64.encodeURLSafe(mac(id: id, variant: variant, expires: expires))
    }

    /// Checks a URL's `sig` against its id, variant and `exp`. A URL is valid up
    /// to and including the second `expires` and expired from the next one
    /// (`now > expires`). Only the canonical form of the signature is accepted
    /// (base64url, unpadded), compared in constant time; the signature is checked
    /// before the time, so that a forger learns nothing from the answer.
    public func verify(
        id: String, variant: AttachmentVariant, expires: Int64, signature: String, now: Int64
    ) -> URLSignatureCheck {
        let expected = Array(self.signature(id: id, variant: variant, expires: expires).utf8)
        guard HMACSHA256.constantTimeEqual(Array(signature.utf8), expected) else { return .invalid }
        return now > expires ? .expired : .valid
    }

    private func mac(id: String, variant: AttachmentVariant, expires: Int64) -> [UInt8] {
        HMACSHA256.authenticate(message: Array("\(id).\(variant.rawValue).\(expires)".utf8), key: key)
    }
}
