import SwitchboardPostgres
import SwitchboardStore
import SwitchboardTestSupport
import Testing

/// Migration 11's policies confine a role that is not the owner: staff see
/// their workspace's attachments and chunks, a visitor those of its own
/// sessions, and a chunk whose attachment row does not exist yet nobody.
@Suite struct AttachmentRowLevelSecurityTests {
    private let sha = String(repeating: "ab", count: 32)

    private func insertAttachment(
        _ db: PostgresConnection, id: String, workspace: String, session: String, filename: String
    ) throws {
        try db.query(
            """
            INSERT INTO attachments (id, workspace_id, session_id, uploader_role, uploader_id, filename,
                                     content_type, size, sha256, storage)
            VALUES ($1, $2, $3, 'operator', 'op-1', $4, 'text/plain', 1, $5, 'postgres')
            """, [id, workspace, session, filename, sha])
        try db.query("INSERT INTO attachment_chunks (attachment_id, variant, n, data) VALUES ($1, 0, 0, '\\x41')", [id])
    }

    private func visibleFiles(_ db: PostgresConnection) throws -> [String] {
        try db.column("SELECT filename FROM attachments ORDER BY filename").compactMap { $0 }
    }

    /// Filenames of the attachments whose chunks the role sees (through the chunk table alone).
    private func visibleChunks(_ db: PostgresConnection, among ids: [String: String]) throws -> [String] {
        let seen = try db.column("SELECT attachment_id::text FROM attachment_chunks").compactMap { $0 }
        return seen.map { ids[$0] ?? "orphan" }.sorted()
    }

    @Test func policiesConfineANonOwnerRole() throws {
        let confined = try ConfinedRole(prefix: "sb_att_")
        defer { confined.drop() }
        let (owner, role) = (confined.owner, confined.name)
        try owner.execute(
            """
            GRANT SELECT ON chat_sessions TO \(role);
            GRANT SELECT, INSERT, UPDATE, DELETE ON attachments, attachment_chunks TO \(role)
            """)
        let (w1, w2) = (newUUID(), newUUID())
        let (s11, s12, s21) = (newUUID(), newUUID(), newUUID())
        try owner.query("INSERT INTO workspaces (id, name) VALUES ($1, 'one'), ($2, 'two')", [w1, w2])
        try owner.query(
            "INSERT INTO chat_sessions (id, workspace_id, user_id) VALUES ($1, $4, 'v-1'), ($2, $4, 'v-2'), ($3, $5, 'v-1')",
            [s11, s12, s21, w1, w2])
        let (a11, a12, a21, orphan) = (newUUID(), newUUID(), newUUID(), newUUID())
        try insertAttachment(owner, id: a11, workspace: w1, session: s11, filename: "w1 v-1")
        try insertAttachment(owner, id: a12, workspace: w1, session: s12, filename: "w1 v-2")
        try insertAttachment(owner, id: a21, workspace: w2, session: s21, filename: "w2 v-1")
        // Chunks of an upload whose row is not committed yet.
        try owner.query(
            "INSERT INTO attachment_chunks (attachment_id, variant, n, data) VALUES ($1, 0, 0, '\\x42')", [orphan])
        let names = [a11: "w1 v-1", a12: "w1 v-2", a21: "w2 v-1"]

        let reader = try confined.connect()
        #expect(try visibleFiles(reader) == [])
        #expect(try visibleChunks(reader, among: names) == [])

        // Staff: the workspace's attachments and their chunks, never another's, never an orphan chunk.
        try reader.actFor(workspace: w1, role: "operator", user: "op-1")
        #expect(try visibleFiles(reader) == ["w1 v-1", "w1 v-2"])
        #expect(try visibleChunks(reader, among: names) == ["w1 v-1", "w1 v-2"])
        #expect(try reader.query("DELETE FROM attachments WHERE id = $1", [a21]).affectedRows == 0)
        #expect(try reader.query("DELETE FROM attachment_chunks WHERE attachment_id = $1", [orphan]).affectedRows == 0)
        let moved = #expect(throws: PostgresError.self) {
            try reader.query("UPDATE attachments SET workspace_id = $1 WHERE id = $2", [w2, a11])
        }
        #expect(moved?.sqlState == "42501")

        // A visitor: its own sessions' attachments (an operator's upload included), read-only.
        try reader.actFor(workspace: w1, role: "visitor", user: "v-1")
        #expect(try visibleFiles(reader) == ["w1 v-1"])
        #expect(try visibleChunks(reader, among: names) == ["w1 v-1"])
        #expect(try reader.query("DELETE FROM attachments").affectedRows == 0)
        #expect(try reader.query("DELETE FROM attachment_chunks").affectedRows == 0)
        #expect(try reader.query("UPDATE attachments SET filename = 'x'").affectedRows == 0)
        // It may add its own upload to its own session, not to another's nor as someone else.
        let own = newUUID()
        try reader.query(
            """
            INSERT INTO attachments (id, workspace_id, session_id, uploader_role, uploader_id, filename,
                                     content_type, size, sha256, storage)
            VALUES ($1, $2, $3, 'visitor', 'v-1', 'mine', 'text/plain', 1, $4, 'postgres')
            """, [own, w1, s11, sha])
        for (session, uploader) in [(s12, "v-1"), (s11, "v-2")] {
            let forged = #expect(throws: PostgresError.self) {
                try reader.query(
                    """
                    INSERT INTO attachments (id, workspace_id, session_id, uploader_role, uploader_id, filename,
                                             content_type, size, sha256, storage)
                    VALUES ($1, $2, $3, 'visitor', $4, 'forged', 'text/plain', 1, $5, 'postgres')
                    """, [newUUID(), w1, session, uploader, sha])
            }
            #expect(forged?.sqlState == "42501")
        }
        #expect(try visibleFiles(reader) == ["mine", "w1 v-1"])

        // Another visitor of the same workspace sees none of it.
        try reader.actFor(workspace: w1, role: "visitor", user: "v-2")
        #expect(try visibleFiles(reader) == ["w1 v-2"])

        try reader.actFor(workspace: nil, role: nil, user: nil)
        #expect(try visibleFiles(reader) == [])
        #expect(try owner.count("SELECT count(*) FROM attachments") == 4)
        #expect(try owner.count("SELECT count(*) FROM attachment_chunks") == 4)
    }

    @Test func chunksPrecedeTheirRowAndDeletingASessionDeletesItsAttachments() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        let (workspace, session, id) = (newUUID(), newUUID(), newUUID())
        try db.query("INSERT INTO workspaces (id, name) VALUES ($1, 'w')", [workspace])
        try db.query(
            "INSERT INTO chat_sessions (id, workspace_id, user_id) VALUES ($1, $2, 'v-1')", [session, workspace])
        // No foreign key on chunks: they are written before the row exists.
        try db.query("INSERT INTO attachment_chunks (attachment_id, variant, n, data) VALUES ($1, 0, 0, '\\x00')", [id])
        try insertAttachment(db, id: newUUID(), workspace: workspace, session: session, filename: "a")
        // The session of another workspace is refused by the composite key.
        let other = newUUID()
        try db.query("INSERT INTO workspaces (id, name) VALUES ($1, 'o')", [other])
        let crossed = #expect(throws: PostgresError.self) {
            try insertAttachment(db, id: newUUID(), workspace: other, session: session, filename: "b")
        }
        #expect(crossed?.sqlState == "23503")
        let badSha = #expect(throws: PostgresError.self) {
            try db.query(
                """
                INSERT INTO attachments (id, workspace_id, session_id, uploader_role, uploader_id, filename,
                                         content_type, size, sha256, storage)
                VALUES ($1, $2, $3, 'visitor', 'v', 'f', 'text/plain', 1, 'ABC', 'postgres')
                """, [newUUID(), workspace, session])
        }
        #expect(badSha?.sqlState == "23514")
        try db.query("DELETE FROM chat_sessions WHERE id = $1", [session])
        #expect(try db.count("SELECT count(*) FROM attachments") == 0)
        let indexes = try db.column(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'attachments' ORDER BY indexname"
        ).compactMap { $0 }
        #expect(indexes == ["attachments_pkey", "idx_attachments_orphans", "idx_attachments_session"])
        let storage = try db.column(
            "SELECT attstorage::text FROM pg_attribute WHERE attrelid = 'attachment_chunks'::regclass AND attname = 'data'"
        )
        #expect(storage == ["e"])
    }
}
