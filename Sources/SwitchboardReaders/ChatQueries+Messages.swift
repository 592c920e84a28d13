import SwitchboardChat
import SwitchboardPostgres

/// History replay.
extension ChatQueries {
    /// Messages with seq > afterSeq, ascending, at most `limit` (none when `limit` < 1);
    /// private notes only `withNotes` (for operators and admins: a visitor's
    /// reads pass false, and its seqs then have holes where the notes are).
    /// Served by the unique index on (session_id, seq), at any table size:
    /// prepared, as every subscribe's history read runs it (planning it
    /// cost more than running it, like `session(id:)`).
    public func messages(
        sessionID: String, afterSeq: Int64, limit: Int, withNotes: Bool
    ) throws(QueryError) -> [ChatMessage] {
        guard limit > 0 else { return [] }
        let result = try run(
            prepared: "messages_after", Self.messagesAfterStatement,
            [sessionID, String(afterSeq), String(limit), withNotes ? "true" : "false"], retryable: true)
        var messages: [ChatMessage] = []
        messages.reserveCapacity(result.rowCount)
        for row in 0..<result.rowCount { messages.append(try RowDecoding.message(result, row)) }
        return messages
    }

    /// `messages(sessionID:afterSeq:limit:withNotes:)`'s statement, built once.
    static let messagesAfterStatement = """
        SELECT \(RowDecoding.messageColumns)
          FROM chats c
         WHERE c.session_id = $1::uuid AND c.seq > $2::bigint AND ($4::boolean OR c.kind <> 'note')
         ORDER BY c.seq
         LIMIT $3::bigint
        """
}
