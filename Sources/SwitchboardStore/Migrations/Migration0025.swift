/// The search indexer's pass planned once per session, not once per range
/// (docs/database.md, "Search"; docs/writer.md, "The readers' and the
/// indexer's share, cut"; issue 36).
///
/// Migration 20's pass runs its statement once for each backlog range, with
/// the range's ids as parameters. PL/pgSQL kept planning it afresh: a generic
/// plan's estimate for an id range of unknown bounds (thousands of rows)
/// never beat the custom plans' (a batch's few), so it was never chosen, and
/// each range paid the planning of the whole statement (its CTEs, the
/// insert, the conflict arbiter). In the gateway's 500 x 2 shape (`scripts/bench-latency`, 2026-11-27) planning was
/// 17-20% of the indexer's CPU (`perf`). The generic plan is the plan every
/// range wants (the key range scan, then the insert): it is now forced, for
/// this function only.
///
/// The insert also no longer probes `message_search` for each message
/// before `ON CONFLICT (chat_id) DO NOTHING` probes the same key again: the
/// conflict check alone skips a message indexed before (a pass repeated
/// after a lost connection), without writing anything for it.
///
/// Online: the function replaced in place, its signature unchanged.
enum Migration0025 {
    static let migration = Migration(version: 25, name: "search_index_generic_plan", sql: sql, down: down)

    static let indexFunction: String = {
        var sql = SQLText.replacing(
            "LANGUAGE plpgsql AS $$", with: "LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$",
            count: 1, in: Migration0020.indexFunction)
        sql = SQLText.replacing(
            "\n               AND NOT EXISTS (SELECT 1 FROM message_search m WHERE m.chat_id = t.id)",
            with: "", count: 1, in: sql)
        return sql
    }()

    private static let sql = indexFunction + ";\n"

    // Down: migration 20's function (CREATE OR REPLACE drops the SET clause with it).
    private static let down = Migration0020.indexFunction + ";\n"
}
