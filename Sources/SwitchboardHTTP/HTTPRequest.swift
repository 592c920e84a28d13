/// One parsed request: the head decoded into Strings, the body de-chunked.
public struct HTTPRequest: Sendable, Equatable {
    public var method: HTTPMethod
    /// The request-target exactly as received (RFC 9112 3.2).
    public var target: String
    /// The path of the target without the query, percent-decoding NOT applied, so
    /// that "%2F" inside a segment cannot be confused with a separator. For the
    /// absolute-form the scheme and authority are dropped (RFC 9112 3.2.2); for the
    /// asterisk-form it is "*" and for the authority-form (CONNECT) the authority.
    public var path: String
    /// The text after the first "?", still encoded; nil when the target has no "?".
    public var query: String?
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    /// The message body with any chunked framing removed.
    public var body: [UInt8]
    /// Whether the connection stays open after the response (RFC 9112 9.3):
    /// HTTP/1.1 unless "Connection: close"; HTTP/1.0 only with "Connection: keep-alive".
    public var keepAlive: Bool

    public init(
        method: HTTPMethod,
        target: String,
        version: HTTPVersion = .http11,
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        keepAlive: Bool? = nil
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
        (self.path, self.query) = Self.split(target: target)
        self.keepAlive = keepAlive ?? Self.defaultKeepAlive(version: version, headers: headers)
    }

    /// The parser's initializer: it has already split the target and read Connection.
    init(
        method: HTTPMethod, target: String, path: String, query: String?, version: HTTPVersion,
        headers: HTTPHeaders, body: [UInt8], keepAlive: Bool
    ) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.version = version
        self.headers = headers
        self.body = body
        self.keepAlive = keepAlive
    }

    /// The query's `name=value` pairs in order, percent-decoded with "+" as a space.
    /// Empty pairs ("a=1&&b=2") are skipped; a name without "=" has the value "".
    public func queryItems() -> [(String, String)] {
        guard let query, !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            if let equals = pair.firstIndex(of: "=") {
                return (
                    HTTPSyntax.percentDecoded(pair[..<equals], plusAsSpace: true),
                    HTTPSyntax.percentDecoded(pair[pair.index(after: equals)...], plusAsSpace: true)
                )
            }
            return (HTTPSyntax.percentDecoded(pair, plusAsSpace: true), "")
        }
    }

    /// The first decoded value of a query parameter.
    public func queryItem(_ name: String) -> String? {
        queryItems().first { $0.0 == name }?.1
    }

    /// Whether the client asked to switch protocols (RFC 9110 7.8), e.g. to WebSocket.
    public var isUpgrade: Bool {
        headers.contains("Connection", token: "upgrade") && headers.first("Upgrade") != nil
    }

    static func defaultKeepAlive(version: HTTPVersion, headers: HTTPHeaders) -> Bool {
        if headers.contains("Connection", token: "close") { return false }
        if version == .http10 { return headers.contains("Connection", token: "keep-alive") }
        return true
    }

    /// Splits a request-target into path and query (RFC 9112 3.2).
    static func split(target: String) -> (path: String, query: String?) {
        var rest = Substring(target)
        // Absolute-form: drop "scheme://authority" (RFC 9112 3.2.2).
        if !rest.hasPrefix("/"), let schemeEnd = rest.firstRange(of: "://") {
            rest = rest[schemeEnd.upperBound...]
            let pathStart = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
            rest = rest[pathStart...]
            if rest.isEmpty || rest.hasPrefix("?") { rest = "/" + rest }
        }
        guard let questionMark = rest.firstIndex(of: "?") else { return (String(rest), nil) }
        return (String(rest[..<questionMark]), String(rest[rest.index(after: questionMark)...]))
    }

    public static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
        lhs.method == rhs.method && lhs.target == rhs.target && lhs.path == rhs.path && lhs.query == rhs.query
            && lhs.version == rhs.version && lhs.headers == rhs.headers && lhs.body == rhs.body
            && lhs.keepAlive == rhs.keepAlive
    }
}
