import COpenSSL

/// Server-side TLS settings and credentials, shared by every connection on every loop.
///
/// `@unchecked Sendable` because it is immutable after `init`: OpenSSL documents an `SSL_CTX` as safe
/// for concurrent `SSL_new` once configured, and nothing here changes it afterwards.
///
/// Choices made here:
/// - TLS 1.2 minimum, TLS 1.3 maximum; TLS 1.2 limited to ECDHE with AEAD ciphers.
/// - No compression (CRIME) and no renegotiation (a client-triggered CPU cost and a source of bugs).
/// - No session resumption: the server session cache is off and no tickets are issued. OpenSSL's ticket key
///   lives as long as the process, which weakens forward secrecy, and long-lived chat connections gain
///   little from resumption. It also means no post-handshake ticket records in TLS 1.3.
/// - `SSL_MODE_RELEASE_BUFFERS`: an idle connection gives back its 16 KiB+ record buffers.
/// - ALPN: see `TLSConfiguration.alpnProtocols`. A client offering ALPN without a protocol we speak gets
///   `no_application_protocol`; a client offering no ALPN at all is served (plain HTTP/1.1 clients).
public final class TLSContext: @unchecked Sendable {
    let context: OpaquePointer
    /// Kept alive here because OpenSSL holds an unretained pointer to it as the callback argument.
    private let alpnSelector: ALPNSelector?

    public init(configuration: TLSConfiguration) throws(TLSError) {
        var selector: ALPNSelector?
        context = try SSLContextMaking.make(TLS_server_method(), "cannot create TLS context") {
            context throws(TLSError) in
            try Self.configureProtocol(context)
            try Self.loadCredentials(context, configuration)
            if !configuration.alpnProtocols.isEmpty {
                let made = try ALPNSelector(protocols: configuration.alpnProtocols)
                made.install(on: context)
                selector = made
            }
        }
        alpnSelector = selector
    }

    deinit {
        SSL_CTX_free(context)
    }

    private static func configureProtocol(_ context: OpaquePointer) throws(TLSError) {
        guard copenssl_SSL_CTX_set_min_proto_version(context, copenssl_TLS1_2_VERSION()) == 1,
            copenssl_SSL_CTX_set_max_proto_version(context, copenssl_TLS1_3_VERSION()) == 1
        else {
            throw TLSError.fromErrorQueue("cannot set TLS protocol versions")
        }
        let options =
            copenssl_SSL_OP_NO_COMPRESSION() | copenssl_SSL_OP_NO_RENEGOTIATION() | copenssl_SSL_OP_NO_TICKET()
        SSL_CTX_set_options(context, UInt64(options))
        _ = copenssl_SSL_CTX_set_mode(context, copenssl_SSL_MODE_RELEASE_BUFFERS())
        _ = copenssl_SSL_CTX_set_session_cache_mode(context, Int(SSL_SESS_CACHE_OFF))
        // With SSL_OP_NO_TICKET, TLS 1.3 would still send (stateful) tickets by default; zero sends none.
        guard SSL_CTX_set_num_tickets(context, 0) == 1 else {
            throw TLSError.fromErrorQueue("cannot disable TLS 1.3 session tickets")
        }
        // TLS 1.2 only (TLS 1.3 suites are all AEAD already): forward secrecy and AEAD, as in Mozilla's
        // "intermediate" profile minus finite-field DHE, which would need DH parameters.
        let tls12Ciphers =
            "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
            + "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"
        guard SSL_CTX_set_cipher_list(context, tls12Ciphers) == 1 else {
            throw TLSError.fromErrorQueue("cannot set TLS 1.2 cipher list")
        }
    }

    private static func loadCredentials(_ context: OpaquePointer, _ configuration: TLSConfiguration) throws(TLSError) {
        let certificatePath = configuration.certificatePath
        let keyPath = configuration.privateKeyPath
        guard SSL_CTX_use_certificate_chain_file(context, certificatePath) == 1 else {
            throw TLSError.fromErrorQueue("cannot load certificate chain \(certificatePath)")
        }
        // This already compares the key with the loaded certificate ("key values mismatch"), so the
        // message names both files.
        guard SSL_CTX_use_PrivateKey_file(context, keyPath, SSL_FILETYPE_PEM) == 1 else {
            throw TLSError.fromErrorQueue("cannot load private key \(keyPath) for certificate \(certificatePath)")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw TLSError.fromErrorQueue(
                "private key \(keyPath) does not match certificate \(certificatePath)")
        }
    }
}
