import COpenSSL

/// HMAC-SHA256 through OpenSSL (JWT HS256 signatures).
public enum HMACSHA256 {
    public static let digestLength = 32

    public static func authenticate(message: some Collection<UInt8>, key: some Collection<UInt8>) -> [UInt8] {
        let keyBytes = Array(key)
        let messageBytes = Array(message)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        keyBytes.withUnsafeBufferPointer { k in
            messageBytes.withUnsafeBufferPointer { m in
                digest.withUnsafeMutableBufferPointer { out in
                    _ = HMAC(
                        EVP_sha256(), k.baseAddress, Int32(k.count), m.baseAddress, m.count, out.baseAddress, &length)
                }
            }
        }
        return Array(digest.prefix(Int(length)))
    }

    /// Compares in time independent of where the inputs differ, so a forger
    /// cannot learn a signature byte by byte.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { pa in
            b.withUnsafeBytes { pb in CRYPTO_memcmp(pa.baseAddress, pb.baseAddress, a.count) == 0 }
        }
    }
}
