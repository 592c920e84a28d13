/// Why a reader query gave no answer.
public enum QueryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database is unreachable (protocol `unavailable`); the next query reconnects.
    case unavailable(String)
    /// The database refused the query (a bug or a broken schema, not the client's doing).
    case failed(String)
    /// A cursor that no page (inbox, search) produced (protocol `bad_request`).
    case invalidCursor

    public var description: String {
        switch self {
        case .unavailable(let message): return "database unavailable: \(message)"
        case .failed(let message): return "query failed: \(message)"
        case .invalidCursor: return "invalid cursor"
        }
    }
}
