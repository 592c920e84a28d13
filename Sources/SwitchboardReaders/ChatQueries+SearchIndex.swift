import SwitchboardPostgres

/// What one pass of the search indexer did.
public struct SearchIndexPass: Sendable, Equatable {
    /// Backlog rows taken (each a batch's id range, or the walk over older messages).
    public let ranges: Int
    /// Messages written to `message_search` (system lines and messages indexed before are skipped).
    public let indexed: Int
    /// Whether work was left: the budget ran out before the backlog did.
    public let more: Bool

    public init(ranges: Int, indexed: Int, more: Bool) {
        self.ranges = ranges
        self.indexed = indexed
        self.more = more
    }
}

extension ChatQueries {
    /// Messages one pass reads at most: about 30 ms of the database's time,
    /// so that no pass holds back the oldest snapshot for long.
    public static let searchIndexBudget = 2_000

    /// One pass of the search indexer (migration 20's `switchboard_index_search`):
    /// takes backlog rows no other indexer holds (`SKIP LOCKED`, so nodes
    /// share the work) in id order, writes the vectors of their messages and
    /// deletes each range it read to its end, until `budget` messages are
    /// read; the range the budget cut short keeps the rest. One statement, one
    /// transaction: a pass repeated after a lost connection finds the vectors
    /// written and skips them.
    ///
    /// The vectors are `to_tsvector('simple', content)`, as `search` parses its
    /// query with `websearch_to_tsquery('simple', …)`: lower-cased words as
    /// written, no stemming, no stop words.
    public func indexSearchBacklog(budget: Int = searchIndexBudget) throws(QueryError) -> SearchIndexPass {
        let result = try run(
            "SELECT ranges, indexed, more FROM switchboard_index_search($1::int)", [String(budget)],
            retryable: true)
        return SearchIndexPass(
            ranges: Int(try RowDecoding.int64(result, 0, 0)), indexed: Int(try RowDecoding.int64(result, 0, 1)),
            more: result.string(0, 2) == "t")
    }

    /// Backlog rows waiting: ranges, not messages (tests wait on the indexer with it).
    public func searchBacklogRanges() throws(QueryError) -> Int {
        Int(try RowDecoding.int64(try run("SELECT count(*) FROM search_backlog", [], retryable: true), 0, 0))
    }
}
