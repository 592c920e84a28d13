import SwitchboardChat
import SwitchboardPostgres

/// One page of the inbox; `nextCursor` is nil on the last page.
public struct InboxPage: Sendable, Equatable {
    public var sessions: [SessionInfo]
    public var nextCursor: String?

    public init(sessions: [SessionInfo], nextCursor: String?) {
        self.sessions = sessions
        self.nextCursor = nextCursor
    }
}

extension ChatQueries {
    /// Non-deleted sessions of a workspace, newest first (created_at DESC, id DESC), keyset-paginated.
    /// `statuses` empty = all statuses. `cursor` is the previous page's nextCursor; a malformed cursor throws
    /// `QueryError.invalidCursor`. A `limit` below 1 gives an empty last page.
    ///
    /// Fetches one row more than asked so the last page has no cursor (no
    /// extra empty round trip for the client). The cursor's timestamp goes back
    /// to the server as microseconds, exactly as it came out.
    public func inbox(
        workspaceID: String, statuses: [SessionStatus], limit: Int, cursor: String?
    ) throws(QueryError)
        -> InboxPage
    {
        try inbox(workspaceID: workspaceID, statuses: statuses, assigned: .any, limit: limit, cursor: cursor)
    }

    /// As `inbox(workspaceID:statuses:limit:cursor:)`, keeping only the sessions `assigned` selects
    /// (`.unassigned`: no operator; `.operatorID`: that operator) and, with `visitorID`, that visitor's
    /// (its earlier conversations). With `readerID`, each session carries that reader's stored read
    /// position (`readSeq`, 0 when it has none): the console's unread counts. Cursors are the same keyset
    /// positions.
    public func inbox(
        workspaceID: String, statuses: [SessionStatus], assigned: AssignedFilter, visitorID: String? = nil,
        readerID: String? = nil, limit: Int, cursor: String?
    ) throws(QueryError)
        -> InboxPage
    {
        var position: KeysetCursor?
        if let cursor {
            guard let parsed = KeysetCursor(cursor) else { throw .invalidCursor }
            position = parsed
        }
        guard limit > 0 else { return InboxPage(sessions: [], nextCursor: nil) }
        // Statuses come from the enum, never from raw client text, so the array literal needs no quoting.
        let filter = assigned.parameters
        let statusArray = statuses.isEmpty ? nil : "{" + statuses.map(\.rawValue).joined(separator: ",") + "}"
        let result = try run(
            """
            SELECT \(RowDecoding.sessionColumns),
                   CASE WHEN $9::text IS NOT NULL THEN
                       coalesce((SELECT r.seq FROM chat_read_positions r
                                  WHERE r.session_id = s.id AND r.reader_id = $9::text), 0) END
              FROM chat_sessions s \(RowDecoding.lastMessageJoin)
             WHERE s.workspace_id = $1::uuid AND s.deleted_at IS NULL
               AND ($2::text[] IS NULL OR s.status = ANY ($2::text[]))
               AND ($6::text IS NULL
                    OR ($6::text = 'unassigned' AND s.assigned_operator_id IS NULL)
                    OR ($6::text = 'operator' AND s.assigned_operator_id = $7::text))
               AND ($8::text IS NULL OR s.user_id = $8::text)
               AND ($3::bigint IS NULL
                    OR (s.created_at, s.id) < (timestamptz 'epoch' + $3::bigint * interval '1 microsecond', $4::uuid))
             ORDER BY s.created_at DESC, s.id DESC
             LIMIT $5::bigint
            """,
            [
                workspaceID, statusArray, position.map { String($0.createdAtMicroseconds) }, position?.id,
                String(limit < Int.max ? limit + 1 : limit), filter.mode, filter.operatorID, visitorID,
                readerID,
            ], retryable: true)
        let count = min(result.rowCount, limit)
        var sessions: [SessionInfo] = []
        sessions.reserveCapacity(count)
        for row in 0..<count {
            var session = try RowDecoding.session(result, row)
            if !result.isNull(row, RowDecoding.sessionColumnCount) {
                session.readSeq = try RowDecoding.int64(result, row, RowDecoding.sessionColumnCount)
            }
            sessions.append(session)
        }
        var nextCursor: String?
        if result.rowCount > limit, let last = sessions.last {
            let micros = try RowDecoding.int64(result, count - 1, RowDecoding.sessionCursorColumn)
            nextCursor = KeysetCursor(createdAtMicroseconds: micros, id: last.id).text
        }
        return InboxPage(sessions: sessions, nextCursor: nextCursor)
    }
}
