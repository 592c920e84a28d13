/// Helpers for postgresql:// connection URLs.
public enum PostgresURL {
    /// The same server, user and options, another database: swaps the path
    /// of a `postgresql://` URL and keeps any `?query`.
    public static func replacingDatabase(in url: String, with database: String) -> String {
        let characters = Array(url)
        let queryStart = characters.firstIndex(of: "?") ?? characters.count
        var authorityStart = 0
        for i in 0..<max(0, queryStart - 2)
        where characters[i] == ":" && characters[i + 1] == "/"
            && characters[i + 2] == "/"
        {
            authorityStart = i + 3
            break
        }
        let pathStart = characters[authorityStart..<queryStart].firstIndex(of: "/") ?? queryStart
        return String(characters[..<pathStart]) + "/" + database + String(characters[queryStart...])
    }
}
