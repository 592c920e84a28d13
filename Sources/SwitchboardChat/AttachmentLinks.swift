import SwitchboardAttachments

/// How an encoder signs the URLs of the attachments it writes: the signer
/// (keyed from the JWT secret), how long a URL stays valid
/// (`attachments.url_ttl_s`) and the wall clock it counts from.
public struct AttachmentLinks: Sendable {
    public var signer: AttachmentURLSigner
    public var ttlSeconds: Int64
    /// Seconds since the Unix epoch.
    public var clock: @Sendable () -> Int64

    public init(signer: AttachmentURLSigner, ttlSeconds: Int64, clock: @escaping @Sendable () -> Int64) {
        self.signer = signer
        self.ttlSeconds = ttlSeconds
        self.clock = clock
    }

    /// When a URL minted now expires.
    public func expiry() -> Int64 {
        let (sum, overflow) = clock().addingReportingOverflow(ttlSeconds)
        return overflow ? .max : sum
    }
}
