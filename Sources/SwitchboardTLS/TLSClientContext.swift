import COpenSSL

/// Client-side TLS for the connections the gateway opens itself (webhook
/// receivers), shared by the connections of one thread or many: immutable
/// after `init`, as `TLSContext` is.
///
/// The receiver's certificate is always verified: against the system's
/// certificate authorities, or those of one PEM file (tests, private CAs), and
/// for the name the URL gives (an IP literal against the certificate's IP
/// addresses). TLS 1.2 at least, no compression, no renegotiation.
public final class TLSClientContext: @unchecked Sendable {
    let context: OpaquePointer

    public init(trustedCertificatesPath: String?) throws(TLSError) {
        context = try SSLContextMaking.make(TLS_client_method(), "cannot create TLS client context") {
            context throws(TLSError) in
            guard copenssl_SSL_CTX_set_min_proto_version(context, copenssl_TLS1_2_VERSION()) == 1 else {
                throw TLSError.fromErrorQueue("cannot set the TLS client's lowest version")
            }
            SSL_CTX_set_options(
                context, UInt64(copenssl_SSL_OP_NO_COMPRESSION() | copenssl_SSL_OP_NO_RENEGOTIATION()))
            _ = copenssl_SSL_CTX_set_mode(context, copenssl_SSL_MODE_RELEASE_BUFFERS())
            if let path = trustedCertificatesPath {
                guard SSL_CTX_load_verify_locations(context, path, nil) == 1 else {
                    throw TLSError.fromErrorQueue("cannot load trusted certificates \(path)")
                }
            } else {
                guard SSL_CTX_set_default_verify_paths(context) == 1 else {
                    throw TLSError.fromErrorQueue("cannot load the system's trusted certificates")
                }
            }
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        }
    }

    deinit {
        SSL_CTX_free(context)
    }

    /// A connection to `host` as the URL names it: a name is sent as SNI and
    /// must be in the certificate; an IP literal (IPv6 without brackets) must
    /// be among its IP addresses.
    public func connection(to host: String, isAddress: Bool) throws(TLSError) -> TLSConnection {
        ERR_clear_error()
        guard let ssl = SSL_new(context) else {
            throw TLSError.fromErrorQueue("cannot create TLS connection")
        }
        let named: Bool
        if isAddress {
            named = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1
        } else {
            named = copenssl_SSL_set_tlsext_host_name(ssl, host) == 1 && SSL_set1_host(ssl, host) == 1
        }
        guard named else {
            SSL_free(ssl)
            throw TLSError.fromErrorQueue("cannot set the TLS server name \(host)")
        }
        return try TLSConnection(ssl: ssl, isServer: false, contextOwner: self)
    }
}
