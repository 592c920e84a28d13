/// What `AttachmentURLSigner.verify` found of a URL's signature.
public enum URLSignatureCheck: Equatable, Sendable {
    /// Signed with the gateway's key and not expired.
    case valid
    /// Signed with the gateway's key, but its time has passed.
    case expired
    /// Not signed with the gateway's key for this id, variant and expiry
    /// (tampered, malformed, or signed with another secret).
    case invalid
}
