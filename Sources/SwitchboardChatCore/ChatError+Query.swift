import SwitchboardChat
import SwitchboardReaders

extension ChatError {
    /// A reader query's failure as the protocol says it, on the socket and in
    /// the HTTP API alike: the one place a `QueryError` becomes a chat error.
    /// The detail (libpq's text: host, port, user) is not for clients.
    package init(_ error: QueryError, ref: String? = nil) {
        switch error {
        case .unavailable:
            self.init(.unavailable, "the database is unreachable; retry later", ref: ref)
        case .invalidCursor:
            self.init(.badRequest, "\"cursor\" is not a cursor this API returned", ref: ref)
        case .failed:
            self.init(.unavailable, "the request could not be completed; retry later", ref: ref)
        }
    }
}
