/// Why an attachment operation failed, in kinds the HTTP layer maps to a status.
public enum AttachmentStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The session's stored bytes would pass its quota (413).
    case quotaExceeded
    /// The session does not exist, is soft-deleted, or belongs to another workspace (404).
    case noSession
    /// The image inspector refused the file, e.g. a decompression bomb (415).
    case imageRefused(String)
    /// The database or the disk failed, or the store is stopped (503).
    case unavailable(String)
    /// No committed attachment (or no thumbnail of it) has that id (404).
    case notFound

    public var description: String {
        switch self {
        case .quotaExceeded: return "the session's attachment quota is exceeded"
        case .noSession: return "no such session"
        case .imageRefused(let message): return "image refused: \(message)"
        case .unavailable(let message): return "attachment storage unavailable: \(message)"
        case .notFound: return "no such attachment"
        }
    }
}
