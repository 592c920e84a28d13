/// Encryption between a socket and its handler (TLS). The loop feeds it the
/// bytes the socket delivered and sends whatever ciphertext it produces; the
/// implementation lives above the loop so this module never imports OpenSSL.
public protocol StreamCipher: AnyObject {
    func receiveCiphertext(_ bytes: UnsafeRawBufferPointer)
    func readPlaintext(into buffer: UnsafeMutableRawBufferPointer) throws -> CipherRead
    /// Encrypts all of `bytes` (buffering internally while the handshake runs).
    func writePlaintext(_ bytes: UnsafeRawBufferPointer) throws
    /// Hands pending ciphertext to `body`, which always takes all of it.
    func drainCiphertext(_ body: (UnsafeRawBufferPointer) -> Void)
    /// Queues close_notify.
    func shutdown()
}

public enum CipherRead: Equatable {
    case bytes(Int)
    case wantMoreCiphertext
    case closed
}
