/// A workspace's saved answer (docs/protocol.md, "The agent's desk"): the
/// console offers it after `/` and its shortcut. The body keeps its
/// placeholders; the console fills them.
public struct CannedReply: Sendable, Equatable {
    /// UUID text.
    public var id: String
    public var shortcut: String
    public var body: String
    /// The `sub` of whoever saved it.
    public var createdBy: String
    /// RFC 3339.
    public var createdAt: String
    public var updatedAt: String

    public init(id: String, shortcut: String, body: String, createdBy: String, createdAt: String, updatedAt: String) {
        self.id = id
        self.shortcut = shortcut
        self.body = body
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// What saving a canned reply came to.
public enum CannedReplySave: Sendable, Equatable {
    case saved(CannedReply)
    /// Another reply of the workspace has that shortcut.
    case shortcutTaken
    /// The workspace has `ChatQueries.maxCannedReplies` already.
    case full
    /// No such reply in the workspace (a change or a delete).
    case notFound
}
