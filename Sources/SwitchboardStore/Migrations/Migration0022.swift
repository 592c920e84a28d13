/// Half of each `chat_sessions` page kept free, not the 30% of migration 2
/// (docs/database.md, `chat_sessions`).
///
/// Every batch updates the row of each session it writes to (`last_seq`,
/// `version`), so a busy session's row gets a new version every few
/// milliseconds. The updates are HOT (no indexed column changes), but every
/// later reader of the row (the next batch's `FOR UPDATE`, the foreign key's
/// check of each stored message, the inbox) walks the chain of its dead
/// versions until PostgreSQL prunes the page, and it prunes only pages whose
/// free space has fallen under the larger of a tenth of the page and what
/// the fill factor leaves free: at 50 that happens far sooner than at 70.
/// (The figures below fit that account; the chains' lengths were not
/// measured.)
///
/// `writer-bench --sessions 500 --batch 20` (2026-11-26, durable PostgreSQL,
/// runs alternated): PostgreSQL CPU per stored message 155-339 us at 70,
/// 77-133 us at 50, stored messages/s 5,075-10,474 at 70, 10,945-18,268
/// at 50; a fill factor of 30 measured 106-139 us, 70 again 256-262 us. In
/// batches of 1,024 over 100 sessions the change is within the noise, and
/// so it is in the gateway's `conversations` scenario (500 x 2 at 10,000
/// msg/s: 110-112 us per stored message at 70, 112-115 us at 50). The
/// table is small beside `chats` (a row per conversation, not per message),
/// so the room costs little (36 pages against 29 after the runs above; 98%
/// of the updates were HOT either way: the chains cost, not the indexes).
/// Pages filled before this migration are pruned by the new rule at once;
/// inserts leave the room from then on.
enum Migration0022 {
    static let migration = Migration(version: 22, name: "session_rows_fillfactor", sql: sql, down: down)

    private static let sql =
        """
        ALTER TABLE chat_sessions SET (fillfactor = 50);
        """

    private static let down =
        """
        ALTER TABLE chat_sessions SET (fillfactor = 70);
        """
}
