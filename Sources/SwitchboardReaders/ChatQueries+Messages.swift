import SwitchboardChat
import SwitchboardPostgres

/// History replay and read positions.
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
            prepared: "messages_after",
            """
            SELECT \(RowDecoding.messageColumns)
              FROM chats c
             WHERE c.session_id = $1::uuid AND c.seq > $2::bigint AND ($4::boolean OR c.kind <> 'note')
             ORDER BY c.seq
             LIMIT $3::bigint
            """, [sessionID, String(afterSeq), String(limit), withNotes ? "true" : "false"], retryable: true)
        var messages: [ChatMessage] = []
        messages.reserveCapacity(result.rowCount)
        for row in 0..<result.rowCount { messages.append(try RowDecoding.message(result, row)) }
        return messages
    }

    /// Stores the reader's highest seq (never moves backwards; clamped to the session's last_seq); returns the stored
    /// value. nil when the session is missing/deleted.
    ///
    /// One statement. The upsert writes only when the position moves forward
    /// (reads arrive often and mostly repeat); otherwise the stored row is read
    /// from the statement's snapshot. Should that row have been inserted by a
    /// concurrent reader after the snapshot, the clamped request stands in.
    ///
    /// Prepared: clients send `read` as messages reach a visible
    /// conversation, so this runs about as often as messages are read, and
    /// parsing and planning it afresh cost 0.13-0.16 ms a call (`pgbench`,
    /// simple against prepared, 0.40-0.44 against 0.25-0.29 ms). Every part of it
    /// is a lookup by key.
    public func recordRead(
        sessionID: String, readerID: String, readerRole: String, seq: Int64
    ) throws(QueryError)
        -> Int64?
    {
        let result = try run(
            prepared: "read_position",
            """
            WITH s AS (
                SELECT id, least(greatest($4::bigint, 0), last_seq) AS seq
                  FROM chat_sessions WHERE id = $1::uuid AND deleted_at IS NULL
            ),
            stored AS (
                INSERT INTO chat_read_positions AS p (session_id, reader_id, reader_role, seq)
                SELECT s.id, $2, $3, s.seq FROM s
                ON CONFLICT (session_id, reader_id) DO UPDATE
                   SET seq = excluded.seq, reader_role = excluded.reader_role, updated_at = now()
                 WHERE p.seq < excluded.seq
                RETURNING p.seq
            )
            SELECT coalesce(
                       (SELECT seq FROM stored),
                       (SELECT p.seq FROM chat_read_positions p WHERE p.session_id = s.id AND p.reader_id = $2),
                       s.seq)
              FROM s
            """, [sessionID, readerID, readerRole, String(seq)], retryable: true)
        return result.rowCount == 0 ? nil : try RowDecoding.int64(result, 0, 0)
    }
}
