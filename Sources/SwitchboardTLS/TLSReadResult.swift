/// What `TLSConnection.readPlaintext(into:)` produced.
public enum TLSReadResult: Equatable, Sendable {
    /// This many plaintext bytes (always more than zero) were written to the front of the buffer.
    case bytes(Int)
    /// Nothing can be decrypted until more ciphertext arrives (a record, or the handshake, is incomplete).
    case wantMoreCiphertext
    /// The peer sent close_notify: no more plaintext will come.
    case closed
}
