import SwitchboardChat

/// One session to bring up to date from the database (a gap in its seq,
/// a batch another node could not carry, the time the cluster bus was away).
public struct CatchUpRequest: Sendable, Equatable {
    public let sessionID: String
    /// Read the messages after this seq; nil reads only the session's state.
    public let after: Int64?
    /// Send the session's state as `session.updated` afterwards (another node changed it).
    public let announce: Bool

    public init(sessionID: String, after: Int64?, announce: Bool) {
        self.sessionID = sessionID
        self.after = after
        self.announce = announce
    }
}

/// What the database holds for a `CatchUpRequest`.
public struct CatchUpAnswer: Sendable {
    public let request: CatchUpRequest
    /// Nil when the session does not exist (or was deleted).
    public let session: SessionInfo?
    /// After `request.after`, in seq order, at most the read's limit.
    public let messages: [ChatMessage]
    /// The database holds no message up to this seq that is not in
    /// `messages` (deleted ones leave holes in the sequence).
    public let through: Int64

    public init(request: CatchUpRequest, session: SessionInfo?, messages: [ChatMessage], limit: Int) {
        self.request = request
        self.session = session
        self.messages = messages
        let newest = messages.last?.seq ?? request.after ?? 0
        // Cut by the limit: only what was read is known; else the session's last_seq, read in the same snapshot.
        through = messages.count < limit ? max(newest, session?.lastSeq ?? newest) : newest
    }
}

extension ChatQueries {
    /// Each live session's last_seq (sessions missing or deleted are left out).
    public func lastSeqs(sessionIDs: [String]) throws(QueryError) -> [String: Int64] {
        guard !sessionIDs.isEmpty else { return [:] }
        let result = try run(
            """
            SELECT s.id::text, s.last_seq FROM chat_sessions s
             WHERE s.id = ANY ($1::uuid[]) AND s.deleted_at IS NULL
            """, ["{" + sessionIDs.joined(separator: ",") + "}"], retryable: true)
        var seqs: [String: Int64] = [:]
        for row in 0..<result.rowCount {
            seqs[try RowDecoding.required(result, row, 0)] = try RowDecoding.int64(result, row, 1)
        }
        return seqs
    }

    /// Every requested session's state and the messages after its `after`, in
    /// one statement (one snapshot, so `through` never claims a message
    /// committed after the messages were read), however many sessions.
    public func catchUp(_ requests: [CatchUpRequest], limit: Int) throws(QueryError) -> [CatchUpAnswer] {
        guard !requests.isEmpty else { return [] }
        let ids = "{" + requests.map(\.sessionID).joined(separator: ",") + "}"
        let afters = "{" + requests.map { $0.after.map(String.init) ?? "NULL" }.joined(separator: ",") + "}"
        let result = try run(
            """
            SELECT \(RowDecoding.sessionColumns), \(RowDecoding.messageColumns)
              FROM unnest($1::uuid[], $2::bigint[]) AS k(session_id, after)
              JOIN chat_sessions s ON s.id = k.session_id AND s.deleted_at IS NULL
              \(RowDecoding.lastMessageJoin)
              LEFT JOIN LATERAL (
                  SELECT r.* FROM chats r
                   WHERE r.session_id = k.session_id AND r.seq > k.after
                   ORDER BY r.seq
                   LIMIT $3::bigint) c ON true
             ORDER BY k.session_id, c.seq
            """, [ids, afters, String(limit)], retryable: true)
        let firstMessageColumn = RowDecoding.sessionColumnCount
        var sessions: [String: SessionInfo] = [:]
        var messages: [String: [ChatMessage]] = [:]
        for row in 0..<result.rowCount {
            let session = try RowDecoding.session(result, row)
            sessions[session.id] = session
            guard !result.isNull(row, firstMessageColumn) else { continue }
            messages[session.id, default: []].append(try RowDecoding.message(result, row, at: firstMessageColumn))
        }
        return requests.map { request in
            let id = request.sessionID.lowercased()
            return CatchUpAnswer(
                request: request, session: sessions[id], messages: messages[id] ?? [], limit: limit)
        }
    }
}
