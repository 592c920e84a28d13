/// Where an attachment's bytes live (`attachments.storage`). The metadata row
/// is in PostgreSQL either way; reads follow each row's own `storage`, so a
/// change of configuration leaves earlier attachments readable.
public enum AttachmentStorage: Sendable, Equatable {
    /// `attachment_chunks` rows of up to `AttachmentStore.chunkBytes`.
    case postgres
    /// Files under `path`: `<path>/<first two hex of id>/<id>` and `<id>.thumb`,
    /// written as `<path>/tmp/<id>.part` first.
    case filesystem(path: String)

    /// The value of `attachments.storage`.
    public var column: String {
        switch self {
        case .postgres: return "postgres"
        case .filesystem: return "filesystem"
        }
    }
}
