import CLibPQ

#if canImport(Glibc)
import Glibc
#endif

/// One libpq connection. Blocking calls: use it only from a thread that may
/// wait (the writer, the reader pool, migrations), never from an event loop.
///
/// Threading: not thread-safe; one owner thread at a time.
public final class PostgresConnection {
    let connection: OpaquePointer
    /// The statements `prepare` made on this connection (a new connection has none).
    var preparedNames: Set<String> = []

    /// Connects with a URL (`postgresql://user@host:port/db?...`) or a
    /// key/value string (`host=... dbname=...`).
    public init(_ conninfo: String) throws(PostgresError) {
        guard let connection = PQconnectdb(conninfo) else {
            throw PostgresError(kind: .connection, message: "out of memory creating a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.trimmed(PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresError(kind: .connection, message: "cannot connect to PostgreSQL: \(message)")
        }
        self.connection = connection
        // Notices (e.g. "relation already exists, skipping") are not errors; keep them off stderr.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
    }

    deinit { PQfinish(connection) }

    public var isConnected: Bool { PQstatus(connection) == CONNECTION_OK }

    /// No transaction open: a statement run now commits on its own, so one the
    /// server refused left nothing behind and may be run again.
    public var isOutsideTransaction: Bool { PQtransactionStatus(connection) == PQTRANS_IDLE }

    /// The server process serving this connection (for pg_terminate_backend in tests).
    public var backendPID: Int32 { PQbackendPID(connection) }

    /// The socket, for waiting with poll/epoll in non-blocking pipeline use.
    public var socket: Int32 { PQsocket(connection) }

    /// Runs one statement with text parameters ($1, $2, ...). Parameters are
    /// sent separately from the SQL text: values are never spliced into it.
    @discardableResult
    public func query(_ sql: String, _ parameters: [String?] = []) throws(PostgresError) -> PostgresResult {
        let raw = Self.withCStrings(parameters) { values in
            PQexecParams(connection, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        return try check(raw)
    }

    /// Prepares `sql` under `name` for this connection's lifetime (outside
    /// pipeline mode), so that later executions skip parsing and planning.
    public func prepare(_ name: String, _ sql: String) throws(PostgresError) {
        _ = try check(PQprepare(connection, name, sql, 0, nil))
        preparedNames.insert(name)
    }

    /// Runs a statement prepared on this connection (`prepare`) with text parameters.
    @discardableResult
    public func query(prepared name: String, _ parameters: [String?]) throws(PostgresError) -> PostgresResult {
        let raw = Self.withCStrings(parameters) { values in
            PQexecPrepared(connection, name, Int32(parameters.count), values, nil, nil, 0)
        }
        return try check(raw)
    }

    /// Runs SQL that may hold several statements and no parameters (migrations).
    public func execute(_ sql: String) throws(PostgresError) {
        _ = try check(PQexec(connection, sql))
    }

    /// Turns a result into a value or an error carrying its SQLSTATE.
    func check(_ raw: OpaquePointer?) throws(PostgresError) -> PostgresResult {
        guard let raw else {
            throw PostgresError(kind: .connection, message: Self.trimmed(PQerrorMessage(connection)))
        }
        let result = PostgresResult(raw)
        switch PQresultStatus(raw) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_SINGLE_TUPLE, PGRES_PIPELINE_SYNC:
            return result
        default:
            throw error(from: raw)
        }
    }

    func error(from raw: OpaquePointer) -> PostgresError {
        let sqlState = PQresultErrorField(raw, clibpq_PG_DIAG_SQLSTATE()).map { String(cString: $0) }
        let message =
            PQresultErrorField(raw, clibpq_PG_DIAG_MESSAGE_PRIMARY()).map { String(cString: $0) }
            ?? Self.trimmed(PQresultErrorMessage(raw))
        let broken = PQstatus(connection) != CONNECTION_OK
        return PostgresError(kind: broken ? .connection : .query, sqlState: sqlState, message: message)
    }

    static func trimmed(_ text: UnsafeMutablePointer<CChar>?) -> String {
        guard let text else { return "unknown libpq error" }
        var message = String(cString: text)
        while message.last == "\n" || message.last == " " { message.removeLast() }
        return message.isEmpty ? "unknown libpq error" : message
    }

    /// Calls `body` with a C array of NUL-terminated copies of `strings` (NULL for nil).
    static func withCStrings<R>(
        _ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R
    ) -> R {
        if strings.isEmpty { return body(nil) }
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.map { strdup($0) } ?? nil }
        defer { for copy in copies { free(copy) } }
        return copies.map { UnsafePointer($0) }.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}
