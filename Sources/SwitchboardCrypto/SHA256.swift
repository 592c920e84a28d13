import COpenSSL

/// SHA-256 through OpenSSL; used for migration checksums, where a stable,
/// collision-resistant fingerprint of the SQL text is all that is needed, and
/// (through `Hasher`) for the fingerprint of an attachment as it streams in.
public enum SHA256 {
    public static let digestLength = 32

    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        OneShotDigest.compute(bytes, length: digestLength, with: COpenSSL.SHA256)
    }

    /// The digest of the UTF-8 bytes of `text`, as lowercase hex (64 characters).
    public static func hexDigest(_ text: String) -> String {
        hex(hash(text.utf8))
    }

    /// `bytes` as lowercase hex, two digits a byte.
    public static func hex(_ bytes: some Collection<UInt8>) -> String {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            var i = 0
            for byte in bytes {
                out[i] = digits.utf8Start[Int(byte >> 4)]
                out[i + 1] = digits.utf8Start[Int(byte & 0x0f)]
                i += 2
            }
            return i
        }
    }
}
