/// Textual rules for claims that end up in logs, database rows and other clients'
/// screens (docs/protocol.md, "Authentication").
enum ClaimText {
    /// Limit for `sub` and `name`, in UTF-8 bytes.
    static let maxBytes = 128

    /// True when `text` has no control characters (Unicode category Cc: C0, DEL, C1),
    /// NUL included: they would corrupt log lines and break C strings downstream.
    static func isPrintable(_ text: String) -> Bool {
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if v < 0x20 || (v >= 0x7F && v <= 0x9F) { return false }
        }
        return true
    }
}
