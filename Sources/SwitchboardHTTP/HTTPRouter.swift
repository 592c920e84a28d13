/// A small router from (method, path) to a handler. Patterns are literal segments
/// and `{name}` parameters, each a whole segment: "/api/v1/sessions/{id}/messages".
///
/// Matching is a linear scan: the gateway has tens of routes, and a scan over
/// them costs less than building a tree would save.
public struct HTTPRouter<Handler> {
    enum Segment: Equatable {
        case literal(String)
        case parameter(String)
    }

    struct Route {
        var method: HTTPMethod
        var segments: [Segment]
        var handler: Handler
    }

    private var routes: [Route] = []

    public init() {}

    /// Registers a route. A pattern must start with "/"; a parameter segment is
    /// "{name}" with a non-empty name. A later duplicate of (method, pattern) is ignored.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ handler: Handler) {
        precondition(pattern.hasPrefix("/"), "route pattern must start with /: \(pattern)")
        let segments = Self.split(pattern).map { segment -> Segment in
            if segment.hasPrefix("{") && segment.hasSuffix("}") && segment.count > 2 {
                return .parameter(String(segment.dropFirst().dropLast()))
            }
            precondition(!segment.contains("{") && !segment.contains("}"), "bad route segment in \(pattern)")
            return .literal(String(segment))
        }
        if routes.contains(where: { $0.method == method && $0.segments == segments }) { return }
        routes.append(Route(method: method, segments: segments, handler: handler))
    }

    /// Finds the handler for a request path (not percent-decoded, without query).
    /// When several routes match, the one with a literal segment where the other
    /// has a parameter wins, earliest segment first ("/sessions/search" over
    /// "/sessions/{id}"); then the first registered. HEAD falls back to GET routes
    /// (RFC 9110 9.3.2: HEAD is GET without the content).
    public func match(method: HTTPMethod, path: String) -> HTTPRouteMatch<Handler> {
        let pathSegments = Self.split(path)
        let candidates = routes.filter { Self.matches($0.segments, pathSegments) }
        if candidates.isEmpty { return .notFound }

        var chosen = Self.mostSpecific(candidates.filter { $0.method == method })
        if chosen == nil && method == .head {
            chosen = Self.mostSpecific(candidates.filter { $0.method == .get })
        }
        guard let route = chosen else {
            var allowed: [HTTPMethod] = []
            for candidate in candidates where !allowed.contains(candidate.method) {
                allowed.append(candidate.method)
                if candidate.method == .get && !candidates.contains(where: { $0.method == .head }) {
                    allowed.append(.head)
                }
            }
            return .methodNotAllowed(allowed: allowed)
        }
        var parameters: [String: String] = [:]
        for (segment, value) in zip(route.segments, pathSegments) {
            if case .parameter(let name) = segment {
                parameters[name] = HTTPSyntax.percentDecoded(value, plusAsSpace: false)
            }
        }
        return .found(route.handler, parameters: parameters)
    }

    /// "/a/b" -> ["a", "b"]; "/" -> [""]; empty segments are kept, so "/a//b" and
    /// "/a/b/" do not match "/a/b".
    private static func split(_ path: String) -> [Substring] {
        Array(path.split(separator: "/", omittingEmptySubsequences: false).dropFirst())
    }

    private static func matches(_ segments: [Segment], _ path: [Substring]) -> Bool {
        guard segments.count == path.count else { return false }
        for (segment, value) in zip(segments, path) {
            switch segment {
            case .literal(let literal): if value != literal { return false }
            case .parameter: if value.isEmpty { return false }
            }
        }
        return true
    }

    private static func mostSpecific(_ routes: [Route]) -> Route? {
        var best: Route?
        for route in routes {
            guard let current = best else {
                best = route
                continue
            }
            for (a, b) in zip(route.segments, current.segments) {
                if case .literal = a, case .parameter = b {
                    best = route
                    break
                }
                if case .parameter = a, case .literal = b { break }
            }
        }
        return best
    }
}

extension HTTPRouter: Sendable where Handler: Sendable {}
extension HTTPRouter.Route: Sendable where Handler: Sendable {}
extension HTTPRouter.Segment: Sendable {}
