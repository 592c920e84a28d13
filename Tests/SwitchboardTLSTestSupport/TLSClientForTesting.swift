import COpenSSL
import SwitchboardTLS

/// An OpenSSL TLS client over memory BIOs, so tests can run a real handshake against a server
/// `TLSConnection` without sockets and without importing COpenSSL themselves. It lives in a
/// test-support target: nothing in the gateway makes TLS client connections.
///
/// Same threading rule as `TLSConnection`: one thread, not `Sendable`.
public final class TLSClientForTesting {
    private let connection: TLSConnection

    /// - Parameters:
    ///   - maximumVersion: "TLSv1.2" or "TLSv1.3" (the default) caps what the client offers.
    ///   - alpnProtocols: offered in this order; empty sends no ALPN extension.
    ///   - trustedCertificatePath: when given, the server's certificate must chain to this PEM file and
    ///     name `serverName`; when nil, the server is not verified.
    public init(
        maximumVersion: String = "TLSv1.3", alpnProtocols: [String] = ["http/1.1"],
        trustedCertificatePath: String? = nil, serverName: String = "localhost"
    ) throws(TLSError) {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw TLSError.fromErrorQueue("cannot create TLS client context")
        }
        // The SSL made below holds its own reference to the context, so ours is dropped on every path.
        defer { SSL_CTX_free(context) }
        let version: Int32
        switch maximumVersion {
        case "TLSv1.2": version = copenssl_TLS1_2_VERSION()
        case "TLSv1.3": version = copenssl_TLS1_3_VERSION()
        default: throw TLSError(message: "unsupported test client version \(maximumVersion)")
        }
        guard copenssl_SSL_CTX_set_max_proto_version(context, version) == 1 else {
            throw TLSError.fromErrorQueue("cannot set test client version \(maximumVersion)")
        }
        if !alpnProtocols.isEmpty {
            var wire: [UInt8] = []
            for name in alpnProtocols {
                wire.append(UInt8(name.utf8.count))
                wire.append(contentsOf: name.utf8)
            }
            // Unlike most of OpenSSL, this returns 0 on success.
            guard SSL_CTX_set_alpn_protos(context, wire, UInt32(wire.count)) == 0 else {
                throw TLSError.fromErrorQueue("cannot set test client ALPN")
            }
        }
        if let trustedCertificatePath {
            guard SSL_CTX_load_verify_locations(context, trustedCertificatePath, nil) == 1 else {
                throw TLSError.fromErrorQueue("cannot load trusted certificate \(trustedCertificatePath)")
            }
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        } else {
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        }
        guard let ssl = SSL_new(context) else {
            throw TLSError.fromErrorQueue("cannot create TLS client")
        }
        if trustedCertificatePath != nil {
            guard SSL_set1_host(ssl, serverName) == 1 else {
                SSL_free(ssl)
                throw TLSError.fromErrorQueue("cannot set expected host name \(serverName)")
            }
        }
        connection = try TLSConnection(ssl: ssl, isServer: false, contextOwner: nil)
    }

    /// Queues the ClientHello (a client speaks first); drain afterwards.
    public func startHandshake() throws(TLSError) {
        var scratch: UInt8 = 0
        let result = try withUnsafeMutableBytes(of: &scratch) { (buffer) throws(TLSError) in
            try connection.readPlaintext(into: buffer)
        }
        precondition(result == .wantMoreCiphertext, "client produced \(result) before the handshake")
    }

    public func receiveCiphertext(_ bytes: UnsafeRawBufferPointer) {
        connection.receiveCiphertext(bytes)
    }

    public func receiveEndOfCiphertext() {
        connection.receiveEndOfCiphertext()
    }

    public func readPlaintext(into buffer: UnsafeMutableRawBufferPointer) throws(TLSError) -> TLSReadResult {
        try connection.readPlaintext(into: buffer)
    }

    public func writePlaintext(_ bytes: UnsafeRawBufferPointer) throws(TLSError) -> Int {
        try connection.writePlaintext(bytes)
    }

    public func drainCiphertext(_ body: (UnsafeRawBufferPointer) -> Int) -> Bool {
        connection.drainCiphertext(body)
    }

    public var hasPendingCiphertext: Bool { connection.hasPendingCiphertext }

    public func shutdown() { connection.shutdown() }

    /// TLS 1.3 only: sends a KeyUpdate that requests one back, with the next write.
    public func requestKeyUpdate() throws(TLSError) { try connection.requestKeyUpdate() }

    public var isHandshakeComplete: Bool { connection.isHandshakeComplete }

    public var negotiatedALPN: String? { connection.negotiatedALPN }

    public var negotiatedVersion: String? { connection.negotiatedVersion }
}

@available(*, unavailable, message: "a TLSClientForTesting belongs to one thread")
extension TLSClientForTesting: Sendable {}
