import SwitchboardHTTP
import SwitchboardSystem
import SwitchboardTLS
import SwitchboardWebhooks

/// One connection of the webhook client to a receiver: its socket, its TLS
/// session for https, the request it carries (at most one: HTTP/1.1 without
/// pipelining) and the answer being read. Between requests it waits in the
/// client's idle pool, watched for the receiver closing it.
///
/// Owned by the client's thread; it does its own socket I/O and nothing else
/// (the client decides what a request does next).
final class ClientConnection {
    /// The client's key for it (epoll data), never reused while the client lives.
    let id: UInt64
    let fd: Int32
    let origin: Origin
    let tls: TLSConnection?
    /// The TCP connect has finished (the TLS handshake may still be under way).
    var isConnected = false
    /// The tag of the request it carries, nil while idle.
    var tag: Int?
    /// It carried a request before this one (a stale keep-alive may have been closed by the receiver).
    var wasReused = false
    /// Bytes of the current answer received so far (plaintext).
    var answerBytes = 0
    var reader: HTTPResponseReader
    /// What epoll watches it for now.
    var watched: UInt32 = 0

    /// The request's bytes not yet written (plain connections; TLS keeps its own).
    private var output: [UInt8] = []
    private var written = 0

    init(id: UInt64, fd: Int32, origin: Origin, tls: TLSConnection?, maximumBodyBytes: Int) {
        self.id = id
        self.fd = fd
        self.origin = origin
        self.tls = tls
        reader = HTTPResponseReader(
            maximumBodyBytes: maximumBodyBytes, keptBodyBytes: DeliveryOutcome.responseHeadBytes)
    }

    deinit {
        Posix.close(fd)
    }

    /// Queues a request's bytes; `flush` writes them.
    func queue(_ request: [UInt8]) throws(TLSError) {
        reader.reset()
        answerBytes = 0
        if let tls {
            _ = try request.withUnsafeBytes { bytes in
                Result { () throws(TLSError) in try tls.writePlaintext(bytes) }
            }.get()
        } else {
            output = request
            written = 0
        }
    }

    /// Some of the request is not written yet (an answer can come before the
    /// receiver has read the whole request): such a connection is not reused.
    var hasUnsentBytes: Bool { tls?.hasPendingCiphertext ?? (written < output.count) }

    /// Writes what is queued, as far as the socket takes it. True when
    /// something is left (watch for writable).
    func flush() throws(SystemError) -> Bool {
        if let tls {
            var failure: SystemError?
            let drained = tls.drainCiphertext { chunk in
                do throws(SystemError) {
                    guard case .processed(let count) = try Socket.send(fd, chunk) else { return 0 }
                    return count
                } catch {
                    failure = error
                    return 0
                }
            }
            if let failure { throw failure }
            return !drained
        }
        while written < output.count {
            let sent = try output.withUnsafeBytes { bytes in
                Result { () throws(SystemError) in
                    try Socket.send(fd, UnsafeRawBufferPointer(rebasing: bytes[written...]))
                }
            }.get()
            guard case .processed(let count) = sent else { return true }
            written += count
        }
        return false
    }

    /// What a read from the socket brought.
    enum Arrival {
        /// Plaintext bytes (in the buffer given, from its start).
        case bytes(Int)
        /// Nothing more for now.
        case wouldBlock
        /// The receiver closed the connection.
        case ended
    }

    /// Reads the next plaintext into `buffer`: for TLS, the ciphertext the
    /// socket has is fed to the session first, and its replies (handshake,
    /// alerts) are queued for `flush`.
    func receive(into buffer: UnsafeMutableRawBufferPointer, scratch: UnsafeMutableRawBufferPointer) throws -> Arrival {
        guard let tls else {
            guard case .processed(let count) = try Posix.read(fd, into: buffer) else { return .wouldBlock }
            return count == 0 ? .ended : .bytes(count)
        }
        // Plaintext already decrypted and waiting comes first.
        while true {
            switch try tls.readPlaintext(into: buffer) {
            case .bytes(let count): return .bytes(count)
            case .closed: return .ended
            case .wantMoreCiphertext: break
            }
            guard case .processed(let count) = try Posix.read(fd, into: scratch) else { return .wouldBlock }
            if count == 0 {
                tls.receiveEndOfCiphertext()
                // Without close_notify OpenSSL calls the stream truncated; many receivers end so, and
                // the answer's framing tells whether anything is missing.
                switch try? tls.readPlaintext(into: buffer) {
                case .bytes(let count): return .bytes(count)
                case .closed, .wantMoreCiphertext, nil: return .ended
                }
            }
            tls.receiveCiphertext(UnsafeRawBufferPointer(rebasing: scratch[..<count]))
        }
    }
}
