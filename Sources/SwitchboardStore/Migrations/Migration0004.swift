/// Read positions: the highest seq each reader has seen in a session
/// (docs/protocol.md `read`), one row per reader, only ever moving forward.
enum Migration0004 {
    static let migration = Migration(
        version: 4, name: "create_chat_read_positions",
        sql: #"""
            CREATE TABLE chat_read_positions (
                session_id uuid NOT NULL REFERENCES chat_sessions (id) ON DELETE CASCADE,
                reader_id text NOT NULL,
                reader_role text NOT NULL CHECK (reader_role IN ('visitor', 'operator', 'admin')),
                seq bigint NOT NULL CHECK (seq >= 0),
                updated_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (session_id, reader_id)
            );
            """#,
        // Down: deletes every read position.
        down: #"""
            DROP TABLE IF EXISTS chat_read_positions;
            """#)
}
