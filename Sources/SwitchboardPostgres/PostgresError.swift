/// A failure reported by libpq or the server, with the SQLSTATE when the
/// server sent one (e.g. "23505" unique violation, "57P01" admin shutdown).
public struct PostgresError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Connecting failed, or the connection broke: the outcome of anything in
        /// flight is unknown and the connection must be re-established.
        case connection
        /// The server refused a statement; the connection is still usable.
        case query
    }

    public let kind: Kind
    public let sqlState: String?
    public let message: String

    public init(kind: Kind, sqlState: String? = nil, message: String) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
    }

    public var description: String {
        sqlState.map { "\(message) (SQLSTATE \($0))" } ?? message
    }

    /// SQLSTATE class 08 (connection exception) and 57P0x (the server is
    /// shutting down or terminated this backend) mean the connection is gone.
    public var isConnectionLoss: Bool {
        if kind == .connection { return true }
        guard let sqlState else { return false }
        return sqlState.hasPrefix("08") || sqlState.hasPrefix("57P")
    }

    /// SQLSTATE 40P01 (deadlock detected) and 40001 (serialization failure):
    /// the server rolled the statement back to break a conflict with another
    /// transaction, and running it again may well succeed.
    public var isTransientConflict: Bool {
        sqlState == "40P01" || sqlState == "40001"
    }

    /// SQLSTATE 0A000 (among others, "cached plan must not change result
    /// type": what a prepared statement returns was changed under it) and
    /// 26000 (no prepared statement of that name): the statement did not run,
    /// and preparing it again may well succeed.
    public var isStalePreparedStatement: Bool {
        sqlState == "0A000" || sqlState == "26000"
    }
}
