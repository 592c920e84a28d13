/// One committed `attachments` row, with whether its session is soft-deleted
/// (whose attachments are answered 404 though their bytes remain until the
/// retention purge).
public struct AttachmentRecord: Sendable, Equatable {
    public var id: String
    public var workspaceID: String
    public var sessionID: String
    public var uploaderRole: String
    public var uploaderID: String
    public var filename: String
    public var contentType: String
    public var size: Int64
    /// Lower-case hex SHA-256 of the file.
    public var sha256: String
    public var width: Int?
    public var height: Int?
    /// `postgres` or `filesystem`: where this attachment's bytes are.
    public var storage: String
    /// Nil when the attachment has no thumbnail.
    public var thumbnailSize: Int64?
    /// The chats row that sent it; nil until sent.
    public var messageID: String?
    /// RFC 3339, UTC, milliseconds.
    public var createdAt: String
    public var sentAt: String?
    public var sessionDeleted: Bool

    public init(
        id: String, workspaceID: String, sessionID: String, uploaderRole: String, uploaderID: String,
        filename: String, contentType: String, size: Int64, sha256: String, width: Int?, height: Int?,
        storage: String, thumbnailSize: Int64?, messageID: String?, createdAt: String, sentAt: String?,
        sessionDeleted: Bool
    ) {
        self.id = id
        self.workspaceID = workspaceID
        self.sessionID = sessionID
        self.uploaderRole = uploaderRole
        self.uploaderID = uploaderID
        self.filename = filename
        self.contentType = contentType
        self.size = size
        self.sha256 = sha256
        self.width = width
        self.height = height
        self.storage = storage
        self.thumbnailSize = thumbnailSize
        self.messageID = messageID
        self.createdAt = createdAt
        self.sentAt = sentAt
        self.sessionDeleted = sessionDeleted
    }

    public var hasThumbnail: Bool { thumbnailSize != nil }
}
