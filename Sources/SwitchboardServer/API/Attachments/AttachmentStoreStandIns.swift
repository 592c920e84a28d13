// TEMPORARY: the shapes of SwitchboardAttachmentStore's values (docs/attachments.md,
// the att-store interface), until that module is on main; then this file goes
// and `import SwitchboardAttachmentStore` takes its place.

struct NewAttachment: Sendable, Equatable {
    var id: String
    var workspaceID: String
    var sessionID: String
    var uploaderRole: String
    var uploaderID: String
    var filename: String
}

struct AttachmentRecord: Sendable, Equatable {
    var id: String
    var workspaceID: String
    var sessionID: String
    var uploaderRole: String
    var uploaderID: String
    var filename: String
    var contentType: String
    var size: Int64
    var sha256: String
    var width: Int?
    var height: Int?
    var storage: String
    var thumbnailSize: Int64?
    var messageID: String?
    var createdAt: String
    var sentAt: String?
    var sessionDeleted: Bool

    var hasThumbnail: Bool { thumbnailSize != nil }
}

enum AttachmentStoreError: Error, Sendable, Equatable {
    case quotaExceeded
    case noSession
    case imageRefused(String)
    case unavailable(String)
    case notFound
}
