/// The search indexer inserts a range's vectors without `ON CONFLICT` when
/// none of the range is indexed yet (docs/database.md, "Search"; issue 36).
///
/// Since migration 25 every message's vector went in through `ON CONFLICT
/// (chat_id) DO NOTHING`: for each row the arbiter index is probed before
/// the insert, the heap tuple is written speculatively and confirmed by a
/// WAL record of its own. Measured with the insert alone (2026-12-01, one
/// backend, CPU from `/proc`, 30,000 messages in ranges of 100 a run, four
/// runs a side alternated): 34.7-38.3 µs a message with `ON CONFLICT`,
/// 27.7-32.7 without, 4.0-7.0 µs less in each pair. No range can hold a
/// message indexed before in the ordinary course: each batch's range is its
/// own ids, a pass that does not commit indexes nothing, and a range is held
/// by its backlog row's lock while a pass reads it.
///
/// So each range is first probed as a whole (one descent of
/// `message_search_pkey` over the range's ids): with nothing indexed in it,
/// the plain insert; otherwise, as before, `ON CONFLICT DO NOTHING`, which
/// skips what is there. Should a row of the range be inserted by another
/// transaction between the probe and the insert (nothing does so today),
/// the insert's unique check fails the pass, which rolls back whole, and the
/// next pass finds the row and takes the conflict path.
///
/// Online: the function replaced in place, its signature unchanged, with the
/// settings migrations 25, 31 and 35 gave it. Down restores migration 25's
/// function and migrations 31's and 35's settings.
enum Migration0042 {
    static let migration = Migration(
        version: 42, name: "search_index_plain_insert_for_new_ranges", sql: sql, down: down)

    /// Migration 25's statement for one range: its messages read, their vectors written.
    private static let rangeStatement = SQLText.span(
        from: "        WITH taken AS MATERIALIZED (", through: "INTO v_read, v_upto, v_written;\n",
        in: Migration0025.indexFunction)

    static let indexFunction: String = {
        var sql = SQLText.replacing(
            "LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$",
            with:
                "LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan SET enable_seqscan = off SET jit = off AS $$",
            count: 1, in: Migration0025.indexFunction)
        let plain = SQLText.replacing(
            "\n            ON CONFLICT (chat_id) DO NOTHING", with: "", count: 1, in: rangeStatement)
        let probed =
            "        -- A range none of whose messages is indexed (every range, in the ordinary\n"
            + "        -- course) takes the plain insert: the conflict check and the speculative\n"
            + "        -- insertion cost about 5 µs a message. One descent of the key for the range.\n"
            + "        IF EXISTS (SELECT 1 FROM message_search m\n"
            + "                    WHERE m.chat_id > r.after_id AND m.chat_id <= r.last_id) THEN\n"
            + SQLText.indented(rangeStatement, by: "    ")
            + "        ELSE\n"
            + SQLText.indented(plain, by: "    ")
            + "        END IF;\n"
        sql = SQLText.replacing(rangeStatement, with: probed, count: 1, in: sql)
        return sql
    }()

    private static let sql = indexFunction + ";\n"

    // Down: migration 25's function (CREATE OR REPLACE drops the SET clauses with it), then 31's and 35's settings.
    private static let down =
        Migration0025.indexFunction + ";\n"
        + "ALTER FUNCTION switchboard_index_search(int) SET enable_seqscan = off;\n"
        + "ALTER FUNCTION switchboard_index_search(int) SET jit = off;\n"
}
