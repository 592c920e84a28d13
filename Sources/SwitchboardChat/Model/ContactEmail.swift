/// A visitor's self-reported email address (`session.contact`, stored as
/// `contact.email`): at most 254 bytes (RFC 5321's path limit), one `@`
/// with something before it and a dotted domain after it, no spaces or
/// control characters. Plausible, not verified: nobody is mailed from here.
public enum ContactEmail {
    public static let maxBytes = 254

    /// Why `address` is refused, or nil when it is plausible.
    public static func problem(_ address: String) -> String? {
        let bytes = Array(address.utf8)
        guard !bytes.isEmpty else { return "\"email\" must not be empty" }
        guard bytes.count <= maxBytes else { return "\"email\" must be at most \(maxBytes) bytes" }
        guard !bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: ",") }) else {
            return "\"email\" must not contain spaces, commas or control characters"
        }
        let parts = bytes.split(separator: UInt8(ascii: "@"), omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].count <= 64 else {
            return "\"email\" must be one address: local-part@domain"
        }
        let labels = parts[1].split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty && $0.count <= 63 }) else {
            return "\"email\" must have a domain such as example.com"
        }
        return nil
    }
}
