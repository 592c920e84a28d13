import COpenSSL

/// SHA-256 through OpenSSL; used for migration checksums, where a stable,
/// collision-resistant fingerprint of the SQL text is all that is needed.
public enum SHA256 {
    public static let digestLength = 32

    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        OneShotDigest.compute(bytes, length: digestLength, with: COpenSSL.SHA256)
    }

    /// The digest of the UTF-8 bytes of `text`, as lowercase hex (64 characters).
    public static func hexDigest(_ text: String) -> String {
        let digits = Array("0123456789abcdef")
        var hex = ""
        hex.reserveCapacity(digestLength * 2)
        for byte in hash(text.utf8) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0f)])
        }
        return hex
    }
}
