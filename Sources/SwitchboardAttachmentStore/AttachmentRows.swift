import SwitchboardPostgres

/// The columns of an `AttachmentRecord` in SQL, and their decoding.
enum AttachmentRows {
    private static func time(_ column: String) -> String {
        #"to_char(\#(column) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')"#
    }

    /// The record's columns of `attachments` aliased `a`, then `sessionDeleted` (an expression).
    static func columns(sessionDeleted: String) -> String {
        """
        a.id::text, a.workspace_id::text, a.session_id::text, a.uploader_role, a.uploader_id, a.filename,
        a.content_type, a.size, a.sha256, a.width, a.height, a.storage, a.thumbnail_size, a.message_id::text,
        \(time("a.created_at")), \(time("a.sent_at")), \(sessionDeleted)
        """
    }

    /// A committed attachment by id, and whether its session is soft-deleted.
    static let lookup = """
        SELECT \(columns(sessionDeleted: "s.deleted_at IS NOT NULL"))
          FROM attachments a JOIN chat_sessions s ON s.id = a.session_id
         WHERE a.id = $1
        """

    static func record(_ result: PostgresResult, row: Int = 0) -> AttachmentRecord {
        func int64(_ column: Int) -> Int64? { result.string(row, column).flatMap { Int64($0) } }
        return AttachmentRecord(
            id: result.string(row, 0) ?? "", workspaceID: result.string(row, 1) ?? "",
            sessionID: result.string(row, 2) ?? "", uploaderRole: result.string(row, 3) ?? "",
            uploaderID: result.string(row, 4) ?? "", filename: result.string(row, 5) ?? "",
            contentType: result.string(row, 6) ?? "", size: int64(7) ?? 0, sha256: result.string(row, 8) ?? "",
            width: result.int(row, 9), height: result.int(row, 10), storage: result.string(row, 11) ?? "",
            thumbnailSize: int64(12), messageID: result.string(row, 13), createdAt: result.string(row, 14) ?? "",
            sentAt: result.string(row, 15), sessionDeleted: result.bool(row, 16) ?? false)
    }
}
