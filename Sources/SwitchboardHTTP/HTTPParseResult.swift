/// What one call to `HTTPRequestParser.parse` produced.
public enum HTTPParseResult: Sendable, Equatable {
    /// Every byte given was consumed; the request is not complete yet.
    case needMore
    /// A complete request. Bytes after it were not consumed.
    case request(HTTPRequest)
    /// The request is malformed or over a limit: answer with this status and close
    /// the connection, since the framing of what follows can no longer be trusted.
    case failure(HTTPStatus)
    /// The head of a request whose body is streamed (`HTTPRequestParser.streamedBodyLimit`):
    /// its body (empty in the request) follows as `.body` pieces, then `.end`.
    case head(HTTPRequest, body: HTTPStreamedBody)
    /// A piece of a streamed body: these positions of the bytes just given, which
    /// were consumed but not copied (chunked framing already removed). Never empty.
    case body(Range<Int>)
    /// The streamed body is complete (a chunked body's trailers included); the
    /// bytes after it were not consumed. Call `parse` for it even with no bytes
    /// left once `isBodyEndPending`.
    case end
}

/// How a streamed request's body is framed (RFC 9112 6.3), known with its head.
public enum HTTPStreamedBody: Sendable, Equatable {
    /// Exactly this many bytes (Content-Length; 0 when the request has no body).
    case length(Int)
    /// Transfer-Encoding: chunked, length unknown until the last chunk.
    case chunked
}
