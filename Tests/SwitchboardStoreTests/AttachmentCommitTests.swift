import SwitchboardPostgres
import SwitchboardStore
import SwitchboardTestSupport
import Testing

/// Migration 15's `switchboard_commit_attachment`: one call commits an upload,
/// a repeated call returns the row it made, and each refusal has its SQLSTATE.
@Suite struct AttachmentCommitTests {
    private let sha = String(repeating: "cd", count: 32)

    /// Calls the function for a text upload of `size` bytes in `chunks` chunks, the last passed as `tail`.
    private func commit(
        _ db: PostgresConnection, id: String, workspace: String, session: String, size: Int, quota: Int,
        chunks: Int?, tail: String?, sha256: String? = nil
    ) throws(PostgresError) -> PostgresResult {
        try db.query(
            """
            SELECT id::text, size, storage FROM switchboard_commit_attachment(
                $1, $2, $3, 'visitor', 'v-1', 'note.txt', 'text/plain', $4::bigint, $5, NULL, NULL, 'postgres',
                NULL, $6::bigint, $7::integer, convert_to($8, 'UTF8'))
            """, [id, workspace, session, String(size), sha256 ?? sha, String(quota), chunks.map { String($0) }, tail])
    }

    /// The SQLSTATE `body` failed with; nil when it did not fail.
    private func state(_ body: () throws -> PostgresResult) -> String? {
        do {
            _ = try body()
            return nil
        } catch {
            return (error as? PostgresError)?.sqlState ?? "not a PostgresError: \(error)"
        }
    }

    @Test func commitsOnceRepeatsAndRefusesWithItsStates() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        let (workspace, session, gone) = (newUUID(), newUUID(), newUUID())
        try db.query("INSERT INTO workspaces (id, name) VALUES ($1, 'one')", [workspace])
        try db.query(
            "INSERT INTO chat_sessions (id, workspace_id, user_id) VALUES ($1, $3, 'v-1'), ($2, $3, 'v-1')",
            [session, gone, workspace])
        try db.query("UPDATE chat_sessions SET deleted_at = now() WHERE id = $1", [gone])

        // Two chunks: the first stored by its own statement, the second by the commit.
        let first = newUUID()
        try db.query(
            "INSERT INTO attachment_chunks (attachment_id, variant, n, data) VALUES ($1, 0, 0, '\\x6869')", [first])
        let row = try commit(
            db, id: first, workspace: workspace, session: session, size: 5, quota: 10, chunks: 2, tail: "abc")
        #expect(row.rows == [[first, "5", "postgres"]])
        #expect(
            try db.column(
                "SELECT encode(data, 'escape') FROM attachment_chunks WHERE attachment_id = $1 ORDER BY n", [first])
                == ["hi", "abc"])
        // Run again (the connection broke before the answer): the same row, nothing added.
        #expect(
            try commit(
                db, id: first, workspace: workspace, session: session, size: 5, quota: 10, chunks: 2, tail: "abc"
            ).rows == row.rows)
        #expect(try db.count("SELECT count(*) FROM attachment_chunks WHERE attachment_id = $1", [first]) == 2)
        // The same id for other bytes is not a repetition.
        #expect(
            state {
                try commit(
                    db, id: first, workspace: workspace, session: session, size: 5, quota: 10, chunks: 2, tail: "abc",
                    sha256: String(repeating: "ef", count: 32))
            } == "23505")

        #expect(
            state {
                try commit(
                    db, id: newUUID(), workspace: workspace, session: gone, size: 1, quota: 10, chunks: 1, tail: "x")
            } == "SBA01")
        #expect(
            state {
                try commit(
                    db, id: newUUID(), workspace: newUUID(), session: session, size: 1, quota: 10, chunks: 1, tail: "x")
            } == "SBA01")
        #expect(
            state {
                try commit(
                    db, id: newUUID(), workspace: workspace, session: session, size: 6, quota: 10, chunks: 1,
                    tail: "sixsix")
            } == "SBA02")
        // A chunk missing (purged, or never written): refused, and nothing of the call stays.
        let missing = newUUID()
        #expect(
            state {
                try commit(
                    db, id: missing, workspace: workspace, session: session, size: 3, quota: 10, chunks: 2, tail: "abc")
            } == "SBA03")
        #expect(try db.count("SELECT count(*) FROM attachment_chunks WHERE attachment_id = $1", [missing]) == 0)
        #expect(try db.count("SELECT count(*) FROM attachments") == 1)
    }

    @Test func theCommitWaitsForTheDiskOnAConnectionThatDoesNot() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        let (workspace, session) = (newUUID(), newUUID())
        try db.query("INSERT INTO workspaces (id, name) VALUES ($1, 'one')", [workspace])
        try db.query(
            "INSERT INTO chat_sessions (id, workspace_id, user_id) VALUES ($1, $2, 'v-1')", [session, workspace])
        try db.execute("SET synchronous_commit = off")
        // Inside the call's own transaction, the setting it made for its commit.
        let seen = try db.query(
            """
            WITH c AS (SELECT * FROM switchboard_commit_attachment($1, $2, $3, 'visitor', 'v-1', 'a.txt', 'text/plain',
                       1, $4, NULL, NULL, 'postgres', NULL, 10, 1, '\\x41'))
            SELECT (SELECT count(*) FROM c), current_setting('synchronous_commit')
            """, [newUUID(), workspace, session, sha])
        #expect(seen.rows == [["1", "on"]])
        // Local to that transaction: the connection's own default is back.
        #expect(try db.column("SHOW synchronous_commit") == ["off"])
    }
}
