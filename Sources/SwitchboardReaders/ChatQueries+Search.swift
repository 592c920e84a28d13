import SwitchboardChat
import SwitchboardPostgres

/// Who is searching: staff see the workspace's messages, notes included; a
/// visitor sees the messages of its own sessions, never a note.
public enum SearchScope: Sendable, Equatable {
    case staff
    case visitor(id: String)
}

extension ChatQueries {
    /// How many of the workspace's newest messages a search tests one by one
    /// before it turns to the GIN index.
    static let searchWalk = 1_000

    /// Messages of the workspace's sessions that are not deleted, matching
    /// `query` (PostgreSQL's `websearch_to_tsquery` with the `simple`
    /// configuration: words, "quoted phrases", `or`, `-word`), newest first
    /// by (created_at, id), keyset-paged like the inbox; system lines are
    /// never found. A query of no words (punctuation only) finds nothing.
    ///
    /// Messages are found through `message_search` (migration 20), which the
    /// `SearchIndexer` fills shortly after each commit: a message is found
    /// once indexed, typically well under a second after it was stored.
    ///
    /// Two ways to a page, in one statement, so that neither a common word nor
    /// a rare one costs much (docs/database.md, "Search"): first the stored
    /// vectors of the workspace's `searchWalk` newest messages before the
    /// cursor are tested one by one; a word in a few percent of messages fills
    /// the page there, and what it found is then exactly the newest matches.
    /// Only when that falls short are all the matches read through the GIN
    /// index and sorted (they include the walk's: the page is one or the
    /// other, never a merge). The planner is
    /// not left to choose between the two: its estimate for a word it has no
    /// statistics of is a flat 0.5% of rows, and a walk chosen for a rare word
    /// reads the whole workspace. Only the page's rows are read from `chats`
    /// (message_search holds the time that orders them). The snippets (`ts_headline`, the costly part)
    /// are made for the page's rows only, after its limit. `ts_headline` drops what its parser takes
    /// for HTML tags, so `<` reaches it as a stand-in (`SnippetPart.lessThan`)
    /// and comes back as written: a snippet shows "<b>" as the visitor typed it.
    public func search(
        workspaceID: String, query: String, scope: SearchScope, limit: Int, cursor: String?
    ) throws(QueryError) -> SearchPage {
        var position: KeysetCursor?
        if let cursor {
            guard let parsed = KeysetCursor(cursor) else { throw .invalidCursor }
            position = parsed
        }
        guard limit > 0 else { return SearchPage(hits: [], nextCursor: nil) }
        let visitor: String?
        switch scope {
        case .staff: visitor = nil
        case .visitor(let id): visitor = id
        }
        let marks = "\(SnippetPart.start)\(SnippetPart.stop)\(SnippetPart.lessThan)"
        let result = try run(
            """
            WITH walk AS MATERIALIZED (
                SELECT w.chat_id AS id, w.created_at
                  FROM (SELECT m.chat_id, m.created_at, m.vector, m.kind, m.session_id
                          FROM message_search m
                         WHERE m.workspace_id = $1::uuid
                           AND ($4::bigint IS NULL
                                OR (m.created_at, m.chat_id)
                                   < (timestamptz 'epoch' + $4::bigint * interval '1 microsecond', $5::uuid))
                         ORDER BY m.created_at DESC, m.chat_id DESC
                         LIMIT $10::bigint) w
                  JOIN chat_sessions s ON s.id = w.session_id
                 WHERE w.vector @@ websearch_to_tsquery('simple'::regconfig, $2)
                   AND ($3::text IS NULL OR (w.kind <> 'note' AND s.user_id = $3::text))
                   AND s.deleted_at IS NULL
                 ORDER BY w.created_at DESC, w.chat_id DESC
                 LIMIT $6::bigint
            ),
            indexed AS MATERIALIZED (
                SELECT m.chat_id AS id, m.created_at
                  FROM message_search m JOIN chat_sessions s ON s.id = m.session_id
                 WHERE (SELECT count(*) FROM walk) < $6::bigint
                   AND m.workspace_id = $1::uuid
                   AND m.vector @@ websearch_to_tsquery('simple'::regconfig, $2)
                   AND ($3::text IS NULL OR (m.kind <> 'note' AND s.user_id = $3::text))
                   AND s.deleted_at IS NULL
                   AND ($4::bigint IS NULL
                        OR (m.created_at, m.chat_id)
                           < (timestamptz 'epoch' + $4::bigint * interval '1 microsecond', $5::uuid))
            ),
            hits AS (
                SELECT c.id, c.session_id, c.seq, c.kind, c.content, c.sender_id, c.user_id, c.role,
                       c.sender_name, c.created_at
                  FROM (SELECT u.id, u.created_at
                          FROM (SELECT id, created_at FROM walk WHERE (SELECT count(*) FROM walk) >= $6::bigint
                                UNION ALL
                                SELECT id, created_at FROM indexed) u
                         ORDER BY u.created_at DESC, u.id DESC
                         LIMIT $6::bigint) m
                  JOIN chats c ON c.id = m.id
            )
            SELECT h.id::text, h.session_id::text, h.seq, h.kind,
                   coalesce(h.sender_id, h.user_id::text, ''), h.role, h.sender_name,
                   \(RowDecoding.timestamp("h.created_at")),
                   (extract(epoch FROM h.created_at) * 1000000)::bigint,
                   ts_headline('simple'::regconfig, replace(translate(h.content, $7, ''), '<', $9),
                               websearch_to_tsquery('simple'::regconfig, $2), $8),
                   s.title, s.status, s.user_id
              FROM hits h JOIN chat_sessions s ON s.id = h.session_id
             ORDER BY h.created_at DESC, h.id DESC
            """,
            [
                workspaceID, query, visitor, position.map { String($0.createdAtMicroseconds) }, position?.id,
                String(limit < Int.max ? limit + 1 : limit), marks,
                "StartSel=\(SnippetPart.start), StopSel=\(SnippetPart.stop), MaxWords=30, MinWords=12, ShortWord=0",
                String(SnippetPart.lessThan), String(Self.searchWalk),
            ], retryable: true)
        let count = min(result.rowCount, limit)
        var hits: [SearchHit] = []
        hits.reserveCapacity(count)
        for row in 0..<count {
            hits.append(
                SearchHit(
                    id: try RowDecoding.required(result, row, 0), sessionID: try RowDecoding.required(result, row, 1),
                    seq: try RowDecoding.int64(result, row, 2), kind: try RowDecoding.required(result, row, 3),
                    sender: Participant(
                        id: try RowDecoding.required(result, row, 4), role: try RowDecoding.required(result, row, 5),
                        name: result.string(row, 6)),
                    createdAt: try RowDecoding.required(result, row, 7),
                    snippet: SnippetPart.parts(try RowDecoding.required(result, row, 9)),
                    sessionTitle: result.string(row, 10) ?? "",
                    sessionStatus: try RowDecoding.required(result, row, 11),
                    visitorID: result.string(row, 12) ?? ""))
        }
        var nextCursor: String?
        if result.rowCount > limit, let last = hits.last {
            nextCursor =
                KeysetCursor(createdAtMicroseconds: try RowDecoding.int64(result, count - 1, 8), id: last.id)
                .text
        }
        return SearchPage(hits: hits, nextCursor: nextCursor)
    }
}
