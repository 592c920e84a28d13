import COpenSSL

/// One TLS session (server side, or client side for the tests' `TLSClientForTesting`) over memory BIOs.
///
/// It does no socket I/O: the event loop hands it ciphertext read from the socket
/// (`receiveCiphertext`) and takes the ciphertext it produces (`drainCiphertext`). After every receive,
/// read and write, the loop drains, because OpenSSL produces output at any of them: handshake flights,
/// alerts, key-update replies.
///
/// Not thread-safe: a connection belongs to the loop thread that accepted it, and every call, including
/// `deinit`, must happen there. It is deliberately not `Sendable`. OpenSSL's error queue is per thread and
/// each call empties it, so one connection's failure never shows up in another's error.
///
/// Memory: `SSL_MODE_RELEASE_BUFFERS` frees OpenSSL's record buffers while idle, and a memory BIO whose
/// buffer grew large is swapped for a fresh one once drained (see `MemoryBIO.retainedCapacityLimit`).
/// The only Swift buffer is for plaintext written before the handshake ends, freed once it is sent.
public final class TLSConnection {
    private let ssl: OpaquePointer
    /// Owned by `ssl`; replaced (and the old one freed) only through `SSL_set0_rbio` / `SSL_set0_wbio`.
    private var readBIO: OpaquePointer
    private var writeBIO: OpaquePointer
    /// Keeps the `SSL_CTX` callbacks' argument (the ALPN selector) alive as long as this connection.
    private let contextOwner: AnyObject?
    /// Plaintext accepted before the handshake finished; sent, in order, as soon as it finishes.
    private var earlyPlaintext: [UInt8] = []
    /// Set by the first fatal error. OpenSSL forbids further I/O then; we refuse it with a clear message.
    private var failure: TLSError?
    private var endOfInput = false
    private var handshakeFinished = false

    /// A server connection: it waits for the client's ClientHello.
    public convenience init(context: TLSContext) throws(TLSError) {
        ERR_clear_error()
        guard let ssl = SSL_new(context.context) else {
            throw TLSError.fromErrorQueue("cannot create TLS connection")
        }
        try self.init(ssl: ssl, isServer: true, contextOwner: context)
    }

    /// Takes ownership of `ssl` (freed here even when this throws).
    package init(ssl: OpaquePointer, isServer: Bool, contextOwner: AnyObject?) throws(TLSError) {
        let readBIO: OpaquePointer
        let writeBIO: OpaquePointer
        do throws(TLSError) {
            readBIO = try MemoryBIO.make()
            do throws(TLSError) {
                writeBIO = try MemoryBIO.make()
            } catch {
                BIO_free(readBIO)
                throw error
            }
        } catch {
            SSL_free(ssl)
            throw error
        }
        SSL_set_bio(ssl, readBIO, writeBIO)  // the SSL now owns both BIOs
        if isServer { SSL_set_accept_state(ssl) } else { SSL_set_connect_state(ssl) }
        self.ssl = ssl
        self.readBIO = readBIO
        self.writeBIO = writeBIO
        self.contextOwner = contextOwner
    }

    deinit {
        SSL_free(ssl)
    }

    /// Ciphertext read from the socket. Nothing is decrypted until `readPlaintext`.
    public func receiveCiphertext(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil, !bytes.isEmpty else { return }
        precondition(!endOfInput, "ciphertext received after receiveEndOfCiphertext()")
        MemoryBIO.write(readBIO, bytes)
    }

    /// The socket reached end of file. Reads then return what is still buffered, and after that `.closed`
    /// if the peer had sent close_notify, or throw if it had not (a truncated stream, RFC 8446 6.1).
    public func receiveEndOfCiphertext() {
        endOfInput = true
        MemoryBIO.markEndOfInput(readBIO)
    }

    /// Decrypts as much as fits into `buffer`, driving the handshake first when it is not finished.
    /// Call it until it returns `.wantMoreCiphertext`, and drain ciphertext afterwards: reading can queue
    /// handshake records and alerts. A handshake or record failure throws, and the fatal alert OpenSSL
    /// sends for it is left to drain; after that the connection is unusable.
    public func readPlaintext(into buffer: UnsafeMutableRawBufferPointer) throws(TLSError) -> TLSReadResult {
        precondition(buffer.count > 0, "readPlaintext needs room for at least one byte")
        if let failure { throw failure }
        ERR_clear_error()
        var count = 0
        let status = SSL_read_ex(ssl, buffer.baseAddress, buffer.count, &count)
        // SSL_get_error must see the queue as SSL_read_ex left it, so nothing else runs in between.
        let error = status == 1 ? SSL_ERROR_NONE : SSL_get_error(ssl, status)
        // Only reads advance the handshake, so latching here sees its end before anything can hide it.
        _ = isHandshakeComplete
        switch error {
        case SSL_ERROR_NONE:
            try flushEarlyPlaintext()
            return .bytes(count)
        case SSL_ERROR_WANT_READ:
            // The server learns the handshake finished here: the client's Finished arrives, no data yet.
            try flushEarlyPlaintext()
            releaseReadBufferIfIdle()
            return .wantMoreCiphertext
        case SSL_ERROR_ZERO_RETURN:
            _ = TLSError.drainErrorQueue()
            return .closed
        case SSL_ERROR_SYSCALL where ERR_peek_error() == 0:
            // With memory BIOs this is an end of input without close_notify.
            throw fail("\(operationName) failed: peer closed the connection without close_notify")
        default:
            throw fail("\(operationName) failed (SSL_get_error \(error))")
        }
    }

    /// Encrypts `bytes` and queues the records for `drainCiphertext`. Returns `bytes.count`: everything is
    /// always accepted. Before the handshake has finished the bytes are copied aside and encrypted, in
    /// order, as soon as it finishes (during a `readPlaintext`). Throws after `shutdown()` or a failure.
    public func writePlaintext(_ bytes: UnsafeRawBufferPointer) throws(TLSError) -> Int {
        if let failure { throw failure }
        if (SSL_get_shutdown(ssl) & SSL_SENT_SHUTDOWN) != 0 {
            throw TLSError(message: "TLS write failed: connection already shut down")
        }
        guard !bytes.isEmpty else { return 0 }
        guard isHandshakeComplete else {
            earlyPlaintext.append(contentsOf: bytes)
            return bytes.count
        }
        try flushEarlyPlaintext()
        try encrypt(bytes)
        return bytes.count
    }

    /// Hands queued ciphertext to `body` and removes the bytes it reports written. `body` returns how many
    /// bytes of the chunk it wrote; a short count means "socket full", and draining stops there.
    /// Returns true when nothing is left queued.
    public func drainCiphertext(_ body: (UnsafeRawBufferPointer) -> Int) -> Bool {
        while true {
            // A memory BIO keeps its bytes contiguous, so this is normally one chunk.
            let chunk = MemoryBIO.peek(writeBIO)
            if chunk.isEmpty {
                writeBIO = Self.replaceIfLarge(writeBIO) { SSL_set0_wbio(ssl, $0) }
                return true
            }
            let written = body(chunk)
            precondition((0...chunk.count).contains(written), "drain body reported \(written) of \(chunk.count)")
            MemoryBIO.discard(writeBIO, written)
            if written < chunk.count { return false }
        }
    }

    /// True when `drainCiphertext` has something to send.
    public var hasPendingCiphertext: Bool {
        MemoryBIO.pending(writeBIO) > 0
    }

    /// Queues close_notify (drain it, then close the socket or wait for the peer's close_notify).
    /// Does nothing before the handshake has finished or after a failure: there is no session to close
    /// cleanly then, and the loop simply closes the socket. Plaintext still waiting for the handshake is dropped.
    public func shutdown() {
        earlyPlaintext = []
        guard failure == nil, isHandshakeComplete, (SSL_get_shutdown(ssl) & SSL_SENT_SHUTDOWN) == 0 else {
            return
        }
        ERR_clear_error()
        // 0 means "sent, peer's not yet received"; both are fine for a memory BIO, which cannot block.
        _ = SSL_shutdown(ssl)
        _ = TLSError.drainErrorQueue()
    }

    /// True once the first handshake has finished; it stays true afterwards.
    public var isHandshakeComplete: Bool {
        // Latched: OpenSSL reports "in init" again while a TLS 1.3 KeyUpdate is pending, which must not
        // send writes back to the early-plaintext buffer.
        if !handshakeFinished && SSL_is_init_finished(ssl) == 1 { handshakeFinished = true }
        return handshakeFinished
    }

    /// The ALPN protocol chosen in the handshake, or nil when the client offered none.
    public var negotiatedALPN: String? {
        var data: UnsafePointer<UInt8>? = nil
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// "TLSv1.3" or "TLSv1.2" once the handshake has finished, nil before.
    public var negotiatedVersion: String? {
        guard isHandshakeComplete, let name = SSL_get_version(ssl) else { return nil }
        return String(cString: name)
    }

    /// Bytes allocated by both memory BIOs: what buffering costs this connection beyond OpenSSL's own state.
    var bufferedCapacity: Int {
        MemoryBIO.capacity(readBIO) + MemoryBIO.capacity(writeBIO)
    }

    /// Asks for a TLS 1.3 KeyUpdate (RFC 8446 4.6.3) with the next write, and for the peer to answer with
    /// its own. Used by the test client to check that the server answers during a read.
    package func requestKeyUpdate() throws(TLSError) {
        precondition(isHandshakeComplete, "key update before the handshake finished")
        ERR_clear_error()
        guard SSL_key_update(ssl, SSL_KEY_UPDATE_REQUESTED) == 1 else {
            throw TLSError.fromErrorQueue("cannot request key update")
        }
    }

    private var operationName: String {
        isHandshakeComplete ? "TLS read" : "TLS handshake"
    }

    /// Records the connection as failed with the error queue's text, and returns the error to throw.
    private func fail(_ what: String) -> TLSError {
        let error = TLSError.fromErrorQueue(what)
        failure = error
        earlyPlaintext = []
        return error
    }

    private func flushEarlyPlaintext() throws(TLSError) {
        guard !earlyPlaintext.isEmpty, isHandshakeComplete else { return }
        let bytes = earlyPlaintext
        earlyPlaintext = []  // frees the buffer: idle connections keep no Swift allocation
        // Array.withUnsafeBytes only rethrows untyped errors, so the typed error is carried out as a value.
        let error: TLSError? = bytes.withUnsafeBytes { raw -> TLSError? in
            do throws(TLSError) { try encrypt(raw) } catch { return error }
            return nil
        }
        if let error { throw error }
    }

    private func encrypt(_ bytes: UnsafeRawBufferPointer) throws(TLSError) {
        ERR_clear_error()
        var written = 0
        // Without SSL_MODE_ENABLE_PARTIAL_WRITE this writes everything or fails, and a memory BIO never
        // makes it wait, so a short write cannot happen.
        let status = SSL_write_ex(ssl, bytes.baseAddress, bytes.count, &written)
        if status != 1 {
            throw fail("TLS write failed (SSL_get_error \(SSL_get_error(ssl, status)))")
        }
    }

    /// Once the read side is empty, gives back a buffer that a burst of input made large.
    private func releaseReadBufferIfIdle() {
        guard !endOfInput, MemoryBIO.pending(readBIO) == 0 else { return }
        readBIO = Self.replaceIfLarge(readBIO) { SSL_set0_rbio(ssl, $0) }
    }

    /// Returns `bio`, or a fresh empty BIO installed through `install` (which frees `bio`) when `bio` is
    /// empty but holds more than `MemoryBIO.retainedCapacityLimit` bytes of buffer.
    private static func replaceIfLarge(_ bio: OpaquePointer, install: (OpaquePointer) -> Void) -> OpaquePointer {
        guard MemoryBIO.capacity(bio) > MemoryBIO.retainedCapacityLimit,
            let fresh = try? MemoryBIO.make()
        else { return bio }
        install(fresh)
        return fresh
    }
}

@available(*, unavailable, message: "a TLSConnection belongs to one loop thread")
extension TLSConnection: Sendable {}
