import Foundation
import SwitchboardChat
import SwitchboardPostgres
import SwitchboardReaders
import SwitchboardTestSupport

/// A migrated throwaway database, an owner connection for arranging rows, and
/// the ChatQueries under test. Call `drop()` (defer) when the test ends.
final class ReadersFixture {
    let database: TestDatabase
    let admin: PostgresConnection
    let queries: ChatQueries
    let workspaceID = UUID().uuidString.lowercased()

    init() throws {
        database = try TestDatabase(migrated: true)
        do {
            admin = try database.connect()
        } catch {
            database.drop()
            throw error
        }
        queries = ChatQueries(databaseURL: database.url)
    }

    func drop() { database.drop() }

    /// Terminates every reader backend on the fixture's database and waits until they are gone;
    /// returns how many there were.
    @discardableResult
    func terminateReaders() throws -> Int {
        let query = """
            SELECT pid FROM pg_stat_activity
             WHERE datname = $1 AND application_name = 'switchboard-reader' AND pid <> pg_backend_pid()
            """
        let found = try admin.query(query, [database.name]).rowCount
        try admin.query("SELECT pg_terminate_backend(pid) FROM (\(query)) readers", [database.name])
        let deadline = Date().addingTimeInterval(10)
        while try admin.query(query, [database.name]).rowCount > 0 && Date() < deadline { usleep(10_000) }
        return found
    }

    /// Runs the search indexer's passes until the backlog is empty, as the gateway's
    /// `SearchIndexer` does after commits; returns the messages indexed.
    @discardableResult
    func indexSearch(chunk: Int = ChatQueries.searchIndexBudget) throws -> Int {
        var indexed = 0
        var passes = 0
        while true {
            let pass = try queries.indexSearchBacklog(budget: chunk)
            indexed += pass.indexed
            passes += 1
            guard pass.more else { return indexed }
            guard passes < 100_000 else { throw FixtureError("the search backlog never drained") }
        }
    }

    /// Stores one message through the writer's function, as the gateway does; returns its seq.
    /// `attachments`: ids of uploads it sends, joined by commas, as the writer passes them.
    @discardableResult
    func append(
        session: String, clientID: String = UUID().uuidString, role: String = "visitor", senderID: String? = "v-1",
        senderName: String? = nil, kind: String = "text", body: String, attachments: String? = nil
    ) throws -> Int64 {
        let result = try admin.query(
            """
            SELECT status, seq FROM switchboard_append_messages(
                ARRAY[$1::uuid], ARRAY[$2::text], ARRAY[$3::text], ARRAY[$4::text], ARRAY[$5::text],
                ARRAY[$6::text], ARRAY[$7::text], ARRAY[$8::text])
            """, [session, clientID, role, senderID, senderName, kind, body, attachments])
        guard result.string(0, 0) == "stored", let seq = result.string(0, 1).flatMap({ Int64($0) }) else {
            throw FixtureError("append returned \(result.rows)")
        }
        return seq
    }

    /// An upload to `session` by `uploader`, as the attachment store commits it.
    func upload(
        session: String, id: String, uploader: String = "v-1", filename: String, contentType: String, size: Int64,
        width: Int? = nil, height: Int? = nil, thumbnail: Bool = false
    ) throws {
        try admin.query(
            """
            INSERT INTO attachments (id, workspace_id, session_id, uploader_role, uploader_id, filename, content_type,
                                     size, sha256, width, height, storage, thumbnail_size)
            SELECT $1::uuid, s.workspace_id, s.id, 'visitor', $3, $4, $5, $6::bigint, repeat('0f', 32), $7::int,
                   $8::int, 'postgres', $9::bigint
              FROM chat_sessions s WHERE s.id = $2::uuid
            """,
            [
                id, session, uploader, filename, contentType, String(size), width.map(String.init),
                height.map(String.init), thumbnail ? "100" : nil,
            ])
    }

    func softDelete(session: String) throws {
        try admin.query("UPDATE chat_sessions SET deleted_at = now() WHERE id = $1::uuid", [session])
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// RFC 3339 UTC with milliseconds, as every timestamp in the protocol.
func isProtocolTimestamp(_ text: String) -> Bool {
    text.wholeMatch(of: #/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/#) != nil
}

/// Lower-case canonical UUID text.
func isLowerUUID(_ text: String) -> Bool {
    text.wholeMatch(of: #/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/#) != nil
}

/// The outcome of a query as a value, so tests can match the typed error.
func capture<T>(_ body: () throws(QueryError) -> T) -> Result<T, QueryError> {
    do {
        return .success(try body())
    } catch {
        return .failure(error)
    }
}

func isUnavailable<T>(_ result: Result<T, QueryError>) -> Bool {
    if case .failure(.unavailable) = result { return true }
    return false
}

extension ChatQueries {
    /// The operator takes the session: `changeSession` as a command of the operator itself.
    func assign(sessionID: String, operatorID: String, operatorName: String?) throws(QueryError) -> SessionInfo? {
        try changeSession(
            sessionID: sessionID, SessionChangeRequest(assignment: .to(id: operatorID, name: operatorName)),
            by: Participant(id: operatorID, role: "operator", name: operatorName))?.session
    }

    /// An operator closes the session.
    func close(sessionID: String) throws(QueryError) -> SessionInfo? {
        try changeSession(sessionID: sessionID, SessionChangeRequest(status: .closed), by: .closer)?.session
    }

    /// A change by an operator that holds no session (a colleague).
    func update(
        sessionID: String, title: String? = nil, status: SessionStatus? = nil
    ) throws(QueryError)
        -> SessionInfo?
    {
        try changeSession(sessionID: sessionID, SessionChangeRequest(title: title, status: status), by: .closer)?
            .session
    }
}

extension Participant {
    static let closer = Participant(id: "op-closer", role: "operator", name: "Cleo")
}
