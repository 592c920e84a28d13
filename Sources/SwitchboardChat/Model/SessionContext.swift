import SwitchboardJSON

/// What the widget reports about where its visitor is (`session.create`'s
/// `context`, docs/protocol.md "The agent's desk"): the page, where the
/// visitor came from, its language, time zone and browser. Self-reported:
/// the console shows it apart from the token's verified contact. Every
/// member is optional, a string of at most 2 KiB without control
/// characters; an unknown member is refused, so a typo is an error.
public enum SessionContext {
    public static let keys = ["page_url", "page_title", "referrer", "locale", "time_zone", "user_agent"]
    public static let maxValueBytes = 2048

    /// The context as canonical JSON text (known members only, in `keys` order), nil when it says
    /// nothing; or why it is refused.
    public static func parse(_ value: JSONValue) -> Result<String?, ContextProblem> {
        if value.isNull { return .success(nil) }
        guard let object = value.objectValue else { return .failure(ContextProblem("must be an object")) }
        if let unknown = object.keys.first(where: { !keys.contains($0) }) {
            return .failure(
                ContextProblem(
                    "has an unknown member \"\(unknown.prefix(64))\" (known: \(keys.joined(separator: ", ")))"))
        }
        var writer = JSONWriter()
        writer.beginObject()
        var any = false
        for key in keys {
            guard let member = object[key], !member.isNull else { continue }
            guard let text = member.stringValue else { return .failure(ContextProblem("\(key) must be a string")) }
            guard text.utf8.count <= maxValueBytes else {
                return .failure(ContextProblem("\(key) is over \(maxValueBytes) bytes"))
            }
            guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
                return .failure(ContextProblem("\(key) must not contain control characters"))
            }
            if text.isEmpty { continue }
            writer.key(key)
            writer.string(text)
            any = true
        }
        writer.endObject()
        return .success(any ? String(decoding: writer.bytes, as: UTF8.self) : nil)
    }
}

/// Why a `context` was refused (the text follows `"context" `).
public struct ContextProblem: Error, Equatable, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
}
