/// The one rule for a session's title, whether it is set by `session.create`
/// or by `PATCH /api/v1/sessions/{id}`: 1 to 200 characters (Unicode code
/// points, as JSON Schema's `maxLength` in docs/openapi.yaml counts them),
/// without U+0000, which PostgreSQL `text` cannot store.
public enum SessionTitle {
    public static let maxCharacters = 200

    /// Why `title` is not acceptable, or nil when it is.
    public static func problem(_ title: String) -> String? {
        guard !title.isEmpty, title.unicodeScalars.count <= maxCharacters, !title.utf8.contains(0) else {
            return "\"title\" must be a string of 1 to \(maxCharacters) characters without U+0000"
        }
        return nil
    }
}
