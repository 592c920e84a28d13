/// Search indexed after the commit, off the writer's path (issue 35,
/// docs/database.md "Search"): migration 19's expression index made every
/// batch pay `to_tsvector` and the GIN insert of each message's words inside
/// the writer's transaction, 28-46% of its stored messages/s, and every search
/// recomputed `to_tsvector` for each row it tested (a phrase of two common
/// words rechecked thousands: 0.6 s).
///
/// - `message_search`: one row per message but system lines, its words as a
///   stored `tsvector` (so a search tests stored vectors, never recomputes
///   one), with the workspace, session, kind and time that scope and order a
///   search (so that only a page's rows are read from `chats`). GIN
///   over the vectors; newest first per workspace for the walk
///   (`ChatQueries.search`). No foreign key: the indexer writes rows it has
///   just read from `chats` in the same statement, and a key check would
///   lock each message row (`FOR KEY SHARE` dirties its page).
/// - `search_backlog`: what is still to index, as ranges of message ids
///   (after `after_id`, up to `last_id`). The writer's function adds one row
///   per batch, in the batch's transaction (its new messages' ids are one
///   run: the batch's prefix and each message's place, migration 13), so a
///   committed message is always either indexed or in the backlog; a
///   rolled-back batch leaves neither. `SearchIndexer` takes rows with
///   `SKIP LOCKED` (several nodes share the work), writes the vectors and
///   deletes the row in one statement.
/// - The messages already stored (a legacy table, or migration 19's) are one
///   backlog row spanning every id, which the indexer walks in chunks in id
///   order; search finds them as it goes (docs/database.md has the time for a
///   million messages).
///
/// Online: new tables, the function replaced in place (its signature is
/// unchanged, so gateways of the previous release keep calling it), and
/// migration 19's indexes dropped `CONCURRENTLY`, which PostgreSQL runs only
/// outside a transaction: statements alone, each safe to run again.
enum Migration0020 {
    static let migration = Migration(
        version: 20, name: "search_after_commit", statementsAlone: up, down: down)

    private static let up = [
        """
        CREATE TABLE IF NOT EXISTS message_search (
            chat_id uuid PRIMARY KEY,
            workspace_id uuid NOT NULL,
            session_id uuid NOT NULL,
            kind text NOT NULL,
            created_at timestamptz NOT NULL,
            vector tsvector NOT NULL
        )
        """,
        "CREATE INDEX IF NOT EXISTS idx_message_search_vector ON message_search USING gin (vector)",
        """
        CREATE INDEX IF NOT EXISTS idx_message_search_recent ON message_search
            (workspace_id, created_at DESC, chat_id DESC)
        """,
        """
        CREATE TABLE IF NOT EXISTS search_backlog (
            id bigserial PRIMARY KEY,
            after_id uuid NOT NULL,
            last_id uuid NOT NULL
        )
        """,
        // Every message stored before this migration (run again: still one such row).
        """
        INSERT INTO search_backlog (after_id, last_id)
        SELECT '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff'
         WHERE NOT EXISTS (SELECT 1 FROM search_backlog
                            WHERE after_id = '00000000-0000-0000-0000-000000000000'
                              AND last_id = 'ffffffff-ffff-ffff-ffff-ffffffffffff')
           AND EXISTS (SELECT 1 FROM chats)
        """,
        indexFunction,
        appendFunction,
        "DROP INDEX CONCURRENTLY IF EXISTS idx_chats_search",
        "DROP INDEX CONCURRENTLY IF EXISTS idx_chats_workspace_recent",
    ]

    // Down: migration 19's state: its indexes built again (CONCURRENTLY),
    // migration 13's function, the search tables gone (they hold nothing
    // that `chats` does not).
    private static let down =
        [
            Migration0013.appendFunction,
            "DROP FUNCTION IF EXISTS switchboard_index_search(int)",
            "DROP TABLE IF EXISTS search_backlog",
            "DROP TABLE IF EXISTS message_search",
        ] + Migration0019.up

    /// One pass of the indexer (`ChatQueries.indexSearchBacklog`): backlog
    /// rows in id order that no other indexer holds (`SKIP LOCKED`, so nodes
    /// share the work), each read in id order and its messages' vectors
    /// written, until `p_budget` messages have been read; a range read to its
    /// end is deleted, the one the budget cut short starts after what was read.
    /// The budget keeps each pass's transaction short: a long one holds back
    /// the oldest snapshot, so the writer's updates of busy session rows could
    /// not prune their old versions (a first version, which read every waiting
    /// range in one statement, cut the writer's messages/s fivefold).
    static let indexFunction = """
        CREATE OR REPLACE FUNCTION switchboard_index_search(
            p_budget int, OUT ranges int, OUT indexed int, OUT more boolean)
        LANGUAGE plpgsql AS $$
        DECLARE
            r record;
            v_left int := p_budget;
            v_read int;
            v_upto uuid;
            v_written int;
        BEGIN
            ranges := 0;
            indexed := 0;
            more := false;
            FOR r IN SELECT b.id, b.after_id, b.last_id FROM search_backlog b ORDER BY b.id
                        FOR UPDATE SKIP LOCKED LOOP
                IF v_left <= 0 THEN
                    more := true;
                    EXIT;
                END IF;
                ranges := ranges + 1;
                WITH taken AS MATERIALIZED (
                    SELECT c.id, c.workspace_id, c.session_id, c.kind, c.created_at, c.content FROM chats c
                     WHERE c.id > r.after_id AND c.id <= r.last_id
                     ORDER BY c.id LIMIT v_left
                ),
                written AS (
                    INSERT INTO message_search (chat_id, workspace_id, session_id, kind, created_at, vector)
                    SELECT t.id, t.workspace_id, t.session_id, t.kind, t.created_at,
                           to_tsvector('simple'::regconfig, t.content)
                      FROM taken t
                     WHERE t.kind <> 'event'
                       AND NOT EXISTS (SELECT 1 FROM message_search m WHERE m.chat_id = t.id)
                    ON CONFLICT (chat_id) DO NOTHING
                    RETURNING 1
                )
                SELECT (SELECT count(*) FROM taken), (SELECT t.id FROM taken t ORDER BY t.id DESC LIMIT 1),
                       (SELECT count(*) FROM written)
                  INTO v_read, v_upto, v_written;
                indexed := indexed + v_written;
                IF v_read >= v_left THEN
                    UPDATE search_backlog SET after_id = v_upto WHERE id = r.id;
                    more := true;
                    EXIT;
                END IF;
                DELETE FROM search_backlog WHERE id = r.id;
                v_left := v_left - v_read;
            END LOOP;
        END;
        $$
        """

    /// Migration 13's function, which also adds the batch's id range to the
    /// backlog on both paths, after the messages and before the webhook step.
    /// On the general path the range may hold fewer messages than the batch
    /// (duplicates and refused sends have no row), or none: the indexer reads
    /// what is there.
    static let appendFunction: String = SQLText.replacing(
        "-- A key lookup per workspace (LIMIT 1 keeps it one): nothing else reads the endpoints.\n",
        with: """
            -- The batch's ids are one run (prefix, then v_tail + its place): the indexer's work.
            INSERT INTO search_backlog (after_id, last_id)
            VALUES ((v_prefix || lpad(to_hex(v_tail), 12, '0'))::uuid,
                    (v_prefix || lpad(to_hex(v_tail + cardinality(p_session_ids)), 12, '0'))::uuid);
            -- A key lookup per workspace (LIMIT 1 keeps it one): nothing else reads the endpoints.

            """,
        count: 2, in: Migration0013.appendFunction)
}
