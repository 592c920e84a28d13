import SwitchboardPostgres

/// What one pass of the search indexer did.
public struct SearchIndexPass: Sendable, Equatable {
    /// Backlog rows taken (each a batch's id range, or the walk over older messages).
    public let ranges: Int
    /// Messages written to `message_search` (system lines and messages indexed before are skipped).
    public let indexed: Int
    /// Whether work was left: every range asked for was taken, or a range held more than a chunk.
    public let more: Bool
}

extension ChatQueries {
    /// Backlog rows per pass: a pass at a few hundred batches a second takes them all.
    public static let searchIndexRanges = 256
    /// Messages read from one range per pass: bounds a pass over the older messages.
    public static let searchIndexChunk = 2_000

    /// Indexes a part of the search backlog (migration 20): takes up to
    /// `ranges` backlog rows no other indexer holds (`SKIP LOCKED`, so nodes
    /// share the work), reads at most `chunk` messages of each in id order,
    /// writes their vectors and, in the same statement, deletes each range it
    /// finished or moves its start past what it read. A crash between the two
    /// is impossible: one statement, one transaction; a pass repeated after a
    /// lost connection finds the vectors written and skips them.
    ///
    /// The vectors are `to_tsvector('simple', content)`, as `search` parses its
    /// query with `websearch_to_tsquery('simple', …)`: lower-cased words as
    /// written, no stemming, no stop words.
    public func indexSearchBacklog(
        ranges: Int = searchIndexRanges, chunk: Int = searchIndexChunk
    ) throws(QueryError) -> SearchIndexPass {
        let result = try run(
            """
            WITH claimed AS MATERIALIZED (
                SELECT b.id, b.after_id, b.last_id FROM search_backlog b
                 ORDER BY b.id LIMIT $1::int FOR UPDATE SKIP LOCKED
            ),
            taken AS MATERIALIZED (
                SELECT cl.id AS backlog_id, c.id, c.workspace_id, c.session_id, c.created_at, c.kind, c.content,
                       count(*) OVER (PARTITION BY cl.id) AS read,
                       first_value(c.id) OVER (PARTITION BY cl.id ORDER BY c.id DESC) AS upto
                  FROM claimed cl
                 CROSS JOIN LATERAL (
                     SELECT c.id, c.workspace_id, c.session_id, c.created_at, c.kind, c.content FROM chats c
                      WHERE c.id > cl.after_id AND c.id <= cl.last_id
                      ORDER BY c.id LIMIT $2::int) c
            ),
            indexed AS (
                INSERT INTO message_search (chat_id, workspace_id, session_id, kind, created_at, vector)
                -- A message in two ranges (a batch's and the walk over older ones) once.
                SELECT DISTINCT ON (t.id) t.id, t.workspace_id, t.session_id, t.kind, t.created_at,
                       to_tsvector('simple'::regconfig, t.content)
                  FROM taken t
                 WHERE t.kind <> 'event'
                   AND NOT EXISTS (SELECT 1 FROM message_search m WHERE m.chat_id = t.id)
                ON CONFLICT (chat_id) DO NOTHING
                RETURNING 1
            ),
            advanced AS (
                UPDATE search_backlog b SET after_id = t.upto
                  FROM (SELECT DISTINCT backlog_id, upto FROM taken WHERE read >= $2::int) t
                 WHERE b.id = t.backlog_id
                RETURNING b.id
            ),
            finished AS (
                DELETE FROM search_backlog b USING claimed cl
                 WHERE b.id = cl.id
                   AND NOT EXISTS (SELECT 1 FROM taken t WHERE t.backlog_id = cl.id AND t.read >= $2::int)
                RETURNING b.id
            )
            SELECT (SELECT count(*) FROM claimed), (SELECT count(*) FROM indexed), (SELECT count(*) FROM advanced)
            """,
            [String(ranges), String(chunk)], retryable: true)
        let claimed = try RowDecoding.int64(result, 0, 0)
        let advanced = try RowDecoding.int64(result, 0, 2)
        return SearchIndexPass(
            ranges: Int(claimed), indexed: Int(try RowDecoding.int64(result, 0, 1)),
            more: claimed >= ranges || advanced > 0)
    }

    /// Backlog rows waiting (for the metrics and for tests that wait on the indexer).
    public func searchBacklogRanges() throws(QueryError) -> Int {
        Int(try RowDecoding.int64(try run("SELECT count(*) FROM search_backlog", [], retryable: true), 0, 0))
    }
}
