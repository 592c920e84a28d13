import SwitchboardAttachments
import SwitchboardChat
import SwitchboardPostgres

/// The select lists the queries share and the code that turns their rows into
/// model values. Lists and decoders live side by side because column positions
/// are the contract between them.
enum RowDecoding {
    /// RFC 3339 in UTC with milliseconds, formatted by the server so every
    /// reply spells time the same way whatever the session's TimeZone.
    static func timestamp(_ expression: String) -> String {
        #"to_char(\#(expression) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')"#
    }

    /// A session row `s` with its last message `m` joined by
    /// `lastMessageJoin`, the inbox cursor's key (created_at in microseconds
    /// since the epoch), and its routing state (migration 9).
    static let sessionColumns = """
        s.id::text, s.workspace_id::text, s.user_id, s.title, s.status, s.assigned_operator_id,
        s.assigned_operator_name, s.last_seq, \(timestamp("s.created_at")), \(timestamp("s.updated_at")),
        m.seq, m.content, m.role, \(timestamp("m.created_at")), s.version, s.deleted_at IS NOT NULL,
        (extract(epoch FROM s.created_at) * 1000000)::bigint, \(timestamp("s.waiting_since")), s.contact::text,
        s.context::text, s.csat::text,
        s.status = 'closed' AND s.csat IS NULL
            AND coalesce((SELECT w.csat_enabled FROM workspaces w WHERE w.id = s.workspace_id), true)
        """

    /// How many columns `sessionColumns` is (what a query selects after it starts there).
    static let sessionColumnCount = 22

    /// The join that finds a session's last message: the newest that is not
    /// an event (a system line is no preview of what was said) nor a private
    /// note (visitors read sessions through it too). Walks the
    /// unique index on (session_id, seq) backwards from the newest row, which
    /// is almost always the one.
    static let lastMessageJoin = """
        LEFT JOIN LATERAL (
            SELECT l.seq, l.content, l.role, l.created_at FROM chats l
             WHERE l.session_id = s.id AND l.kind NOT IN ('event', 'note')
             ORDER BY l.seq DESC LIMIT 1) m ON true
        """

    static let sessionCursorColumn = 16

    static func session(_ result: PostgresResult, _ row: Int) throws(QueryError) -> SessionInfo {
        let statusText = try required(result, row, 4)
        guard let status = SessionStatus(rawValue: statusText) else {
            throw .failed("unexpected session status \(statusText)")
        }
        var lastMessage: LastMessage?
        if !result.isNull(row, 10) {
            lastMessage = LastMessage(
                seq: try int64(result, row, 10), body: try required(result, row, 11),
                senderRole: try required(result, row, 12), createdAt: try required(result, row, 13))
        }
        return SessionInfo(
            id: try required(result, row, 0), workspaceID: try required(result, row, 1),
            visitorID: result.string(row, 2), title: try required(result, row, 3), status: status,
            assignedOperator: result.string(row, 5).map { AssignedOperator(id: $0, name: result.string(row, 6)) },
            lastSeq: try int64(result, row, 7), lastMessage: lastMessage, createdAt: try required(result, row, 8),
            updatedAt: try required(result, row, 9), version: try int64(result, row, 14),
            deleted: result.bool(row, 15) == true, waitingSince: result.string(row, 17),
            contact: result.string(row, 18), context: result.string(row, 19), csat: result.string(row, 20),
            csatSurvey: result.bool(row, 21) == true)
    }

    /// A message row `c` of chats. The sender falls back to the legacy
    /// `user_id` for rows adopted from before sessions existed. Its
    /// attachments (migration 12) last.
    static let messageColumns = """
        c.id::text, c.session_id::text, c.seq, c.client_msg_id, c.kind, c.content,
        coalesce(c.sender_id, c.user_id::text, ''), c.role, c.sender_name, \(timestamp("c.created_at")),
        c.meta::text, c.attachments::text
        """

    /// How many columns `messageColumns` is.
    static let messageColumnCount = 12

    /// A `text[]` parameter: every element double-quoted, `\` and `"`
    /// escaped, so that commas, braces, quotes and spaces in ids stay data.
    static func textArray(_ values: [String]) -> String { textArray(values.map(Optional.some)) }

    /// The same with NULL elements for nil (the literal's unquoted `NULL`);
    /// it casts to other array types (`$1::int[]`) as well.
    static func textArray(_ values: [String?]) -> String { PostgresArray.textLiteral(values) }

    /// `messageColumns` starting at column `at` of the row.
    static func message(_ result: PostgresResult, _ row: Int, at first: Int = 0) throws(QueryError) -> ChatMessage {
        ChatMessage(
            id: try required(result, row, first), sessionID: try required(result, row, first + 1),
            seq: try int64(result, row, first + 2), clientMessageID: try required(result, row, first + 3),
            kind: try required(result, row, first + 4), body: try required(result, row, first + 5),
            sender: Participant(
                id: try required(result, row, first + 6), role: try required(result, row, first + 7),
                name: result.string(row, first + 8)),
            createdAt: try required(result, row, first + 9), meta: result.string(row, first + 10),
            attachments: try attachments(result, row, first + 11))
    }

    /// A `chats.attachments` column: none when NULL; a list PostgreSQL wrote
    /// that does not decode means the schema is not the one this build expects.
    static func attachments(
        _ result: PostgresResult, _ row: Int, _ column: Int
    ) throws(QueryError)
        -> [AttachmentObject]
    {
        guard let json = result.string(row, column) else { return [] }
        guard let list = AttachmentObject.decodeList(json) else {
            throw .failed("column \(result.columnName(column)) is not a list of attachments: \(json.prefix(200))")
        }
        return list
    }

    /// A NOT NULL column; NULL means the schema is not the one this build expects.
    static func required(_ result: PostgresResult, _ row: Int, _ column: Int) throws(QueryError) -> String {
        guard let value = result.string(row, column) else {
            throw .failed("unexpected NULL in column \(result.columnName(column))")
        }
        return value
    }

    /// A nullable float8 column.
    static func double(_ result: PostgresResult, _ row: Int, _ column: Int) throws(QueryError) -> Double? {
        guard let text = result.string(row, column) else { return nil }
        guard let value = Double(text) else {
            throw .failed("column \(result.columnName(column)) is not a number: \(text)")
        }
        return value
    }

    static func int64(_ result: PostgresResult, _ row: Int, _ column: Int) throws(QueryError) -> Int64 {
        let text = try required(result, row, column)
        guard let value = Int64(text) else {
            throw .failed("column \(result.columnName(column)) is not an integer: \(text)")
        }
        return value
    }
}
