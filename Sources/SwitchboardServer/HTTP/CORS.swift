import SwitchboardHTTP
import SwitchboardMetrics
import SwitchboardWebSocket

/// Cross-origin use of the HTTP API from browser pages on other origins (a
/// widget embedded on a company's site pages a visitor's history; a console
/// hosted elsewhere). Origins are those of `websocket.allowed_origins` (all
/// when the list is empty, as for the WebSocket). The API authenticates
/// with bearer tokens, never cookies, so no credentials are allowed.
enum CORS {
    /// The answer to a preflight (OPTIONS) of an API path.
    static func preflight(_ request: HTTPRequest, allowedOrigins: AllowedOrigins) -> HTTPResponse {
        var response = HTTPResponse(status: .noContent)
        guard let origin = allowedOrigin(request, allowedOrigins) else { return response }
        response.headers += [
            ("Access-Control-Allow-Origin", origin), ("Vary", "Origin"),
            ("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE"),
            ("Access-Control-Allow-Headers", "Authorization, Content-Type"), ("Access-Control-Max-Age", "600"),
        ]
        return response
    }

    /// Lets the requesting page read an API answer, if its origin is allowed.
    static func allow(_ response: inout HTTPResponse, for request: HTTPRequest, allowedOrigins: AllowedOrigins) {
        guard let origin = allowedOrigin(request, allowedOrigins) else { return }
        // Retry-After is not a header pages may read unless named: the SDK waits it out (429, 503).
        response.headers += [
            ("Access-Control-Allow-Origin", origin), ("Vary", "Origin"),
            ("Access-Control-Expose-Headers", "Retry-After"),
        ]
    }

    private static func allowedOrigin(_ request: HTTPRequest, _ allowed: AllowedOrigins) -> String? {
        guard let origin = request.headers.first("Origin"), !origin.isEmpty, origin != "null" else { return nil }
        return allowed.allows(origin) ? origin : nil
    }
}

extension HTTPRoute {
    /// The JSON API under /api/v1, which browsers on other origins may call.
    var isAPI: Bool { APIRoutes.byLabel[self] != nil || AttachmentRoutes.labels.contains(self) }
}
