/// What a server `TLSContext` is built from.
public struct TLSConfiguration: Sendable {
    /// PEM file: the leaf certificate first, then any intermediates.
    public var certificatePath: String
    /// PEM file with the private key matching the leaf certificate (unencrypted).
    public var privateKeyPath: String
    /// Protocols the server accepts through ALPN, most preferred first. A client that offers ALPN but none of
    /// these is refused with the `no_application_protocol` alert (RFC 7301 3.2). Empty turns ALPN off:
    /// the server then ignores what clients offer.
    public var alpnProtocols: [String] = ["http/1.1"]

    public init(certificatePath: String, privateKeyPath: String, alpnProtocols: [String] = ["http/1.1"]) {
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
        self.alpnProtocols = alpnProtocols
    }
}
