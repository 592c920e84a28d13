/// The outcome of `HTTPRouter.match`.
public enum HTTPRouteMatch<Handler> {
    /// A route matched; `parameters` holds the `{name}` segments, percent-decoded.
    case found(Handler, parameters: [String: String])
    /// The path matched routes, none for this method: answer 405 with an Allow
    /// header listing these (RFC 9110 15.5.6).
    case methodNotAllowed(allowed: [HTTPMethod])
    case notFound
}

extension HTTPRouteMatch: Sendable where Handler: Sendable {}

extension HTTPRouteMatch {
    /// The value for an Allow header, e.g. "GET, HEAD, POST".
    public static func allowHeader(_ methods: [HTTPMethod]) -> String {
        methods.map(\.name).joined(separator: ", ")
    }
}
