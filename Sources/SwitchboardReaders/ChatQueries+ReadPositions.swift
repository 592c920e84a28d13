import SwitchboardPostgres

/// A reader's claim to have read a session up to `seq` (a `read` frame).
public struct ReadPosition: Sendable, Equatable {
    public let sessionID: String
    public let readerID: String
    public let readerRole: String
    public let seq: Int64

    public init(sessionID: String, readerID: String, readerRole: String, seq: Int64) {
        self.sessionID = sessionID
        self.readerID = readerID
        self.readerRole = readerRole
        self.seq = seq
    }
}

/// Read positions, many to a statement.
extension ChatQueries {
    /// Stores each reader's highest seq (never backwards; clamped to the
    /// session's last_seq) and returns, in the order asked, the value stored,
    /// or nil for a missing or deleted session. Two positions of one session
    /// and reader store the higher (one upsert cannot touch a row twice).
    ///
    /// One statement and one commit for all of them. Clients send `read` as
    /// messages reach a conversation on screen, about two per message where
    /// both sides watch; stored one by one, each was a durable transaction of
    /// its own. The upsert writes only a position that moves forward, so what
    /// it leaves is the higher of the row in the statement's snapshot and the
    /// request: that is the answer, without reading the upsert's own rows back.
    /// A row a concurrent reader wrote after the snapshot leaves the request
    /// standing in. Rows are written in key order, so that two batches sharing
    /// positions (two event loops, two nodes) lock them in the same order and
    /// never deadlock.
    ///
    /// Prepared: every lookup in it is by primary key (`readPositionsStatement`),
    /// right at any size.
    public func recordReads(_ positions: [ReadPosition]) throws(QueryError) -> [Int64?] {
        guard !positions.isEmpty else { return [] }
        let result = try run(
            prepared: "read_positions", Self.readPositionsStatement,
            [
                PostgresArray.textLiteral(positions.map(\.sessionID)),
                PostgresArray.textLiteral(positions.map(\.readerID)),
                PostgresArray.textLiteral(positions.map(\.readerRole)),
                "{" + positions.map { String($0.seq) }.joined(separator: ",") + "}",
            ], retryable: true)
        var stored = [Int64?](repeating: nil, count: positions.count)
        for row in 0..<result.rowCount {
            let ordinal = Int(try RowDecoding.int64(result, row, 0))
            guard ordinal >= 1 && ordinal <= positions.count else {
                throw QueryError.failed("read positions: ordinal \(ordinal) of \(positions.count)")
            }
            stored[ordinal - 1] = try RowDecoding.int64(result, row, 1)
        }
        return stored
    }

    /// `recordReads`' statement. Each position finds its session and its
    /// stored row through a subquery of its own, a lookup by primary key
    /// whatever the plan thinks of the array's length: joined instead, a
    /// generic plan (made for the ten rows it guesses an array holds) hashed
    /// all of `chat_sessions` for every statement with 500 sessions stored
    /// (`ReadPositionPlanTests`).
    static let readPositionsStatement = """
        WITH asked AS MATERIALIZED (
            SELECT u.*,
                   (SELECT s.last_seq FROM chat_sessions s WHERE s.id = u.session_id AND s.deleted_at IS NULL) AS last_seq
              FROM unnest($1::uuid[], $2::text[], $3::text[], $4::bigint[])
                   WITH ORDINALITY AS u(session_id, reader_id, reader_role, seq, ordinal)
        ),
        live AS (
            SELECT ordinal, session_id, reader_id, reader_role, least(greatest(seq, 0), last_seq) AS seq
              FROM asked WHERE last_seq IS NOT NULL
        ),
        stored AS (
            INSERT INTO chat_read_positions AS p (session_id, reader_id, reader_role, seq)
            SELECT DISTINCT ON (session_id, reader_id) session_id, reader_id, reader_role, seq
              FROM live ORDER BY session_id, reader_id, seq DESC
            ON CONFLICT (session_id, reader_id) DO UPDATE
               SET seq = excluded.seq, reader_role = excluded.reader_role, updated_at = now()
             WHERE p.seq < excluded.seq
        )
        SELECT l.ordinal,
               greatest(
                   (SELECT p.seq FROM chat_read_positions p
                     WHERE p.session_id = l.session_id AND p.reader_id = l.reader_id),
                   max(l.seq) OVER (PARTITION BY l.session_id, l.reader_id))
          FROM live l
        """
}
