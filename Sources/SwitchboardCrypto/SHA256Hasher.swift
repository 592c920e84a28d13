import COpenSSL

extension SHA256 {
    /// SHA-256 of bytes that arrive in pieces (an upload's body), through OpenSSL's
    /// EVP digest API: the digest of every piece fed in order equals the one-shot
    /// digest of their concatenation, wherever the pieces were cut.
    ///
    /// One owner at a time: not `Sendable`. Finalizing ends it; feeding it afterwards
    /// is a programmer error.
    public final class Hasher {
        private let context: OpaquePointer
        private var finalized = false

        public init() {
            // Both calls fail only when OpenSSL cannot allocate: nothing to recover.
            guard let context = EVP_MD_CTX_new() else { preconditionFailure("OpenSSL EVP_MD_CTX_new failed") }
            self.context = context
            precondition(EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1, "OpenSSL EVP_DigestInit_ex failed")
        }

        deinit {
            EVP_MD_CTX_free(context)
        }

        public func update(_ bytes: UnsafeRawBufferPointer) {
            precondition(!finalized, "SHA256.Hasher fed after it was finalized")
            guard let base = bytes.baseAddress, bytes.count > 0 else { return }
            precondition(EVP_DigestUpdate(context, base, bytes.count) == 1, "OpenSSL EVP_DigestUpdate failed")
        }

        public func update(_ bytes: [UInt8]) {
            bytes.withUnsafeBytes { update($0) }
        }

        /// The digest of everything fed (32 bytes); the hasher is spent afterwards.
        public func finalize() -> [UInt8] {
            precondition(!finalized, "SHA256.Hasher finalized twice")
            finalized = true
            var digest = [UInt8](repeating: 0, count: SHA256.digestLength)
            var length: UInt32 = 0
            let ok = digest.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
            precondition(ok == 1 && length == UInt32(SHA256.digestLength), "OpenSSL EVP_DigestFinal_ex failed")
            return digest
        }

        /// The digest as lowercase hex (64 characters), the form stored and served as an ETag.
        public func finalizeHex() -> String {
            SHA256.hex(finalize())
        }
    }
}
