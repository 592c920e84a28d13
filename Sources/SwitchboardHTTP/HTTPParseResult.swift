/// What one call to `HTTPRequestParser.parse` produced.
public enum HTTPParseResult: Sendable, Equatable {
    /// Every byte given was consumed; the request is not complete yet.
    case needMore
    /// A complete request. Bytes after it were not consumed.
    case request(HTTPRequest)
    /// The request is malformed or over a limit: answer with this status and close
    /// the connection, since the framing of what follows can no longer be trusted.
    case failure(HTTPStatus)
}
