import COpenSSL

/// Makes an `SSL_CTX` for the server's and the client's contexts alike: a
/// context `configure` fails on is freed there, with the error queue emptied,
/// so that neither owner holds a half-built one.
enum SSLContextMaking {
    static func make(
        _ method: OpaquePointer?, _ what: String, configure: (OpaquePointer) throws(TLSError) -> Void
    ) throws(TLSError) -> OpaquePointer {
        ERR_clear_error()
        guard let context = SSL_CTX_new(method) else { throw TLSError.fromErrorQueue(what) }
        do throws(TLSError) {
            try configure(context)
        } catch {
            SSL_CTX_free(context)
            _ = TLSError.drainErrorQueue()
            throw error
        }
        return context
    }
}
