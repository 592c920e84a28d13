import SwitchboardHTTP
import SwitchboardLoop
import SwitchboardMetrics

/// The gateway's paths. Each maps to an `HTTPRoute`, which is also the
/// `route` label its requests are counted under, so a new route is one case
/// there, one line in `router`, and one in `answer`.
enum Routes {
    static func router(echo: Bool, database: Bool) -> HTTPRouter<HTTPRoute> {
        var router = HTTPRouter<HTTPRoute>()
        router.add(.get, "/healthz", .healthz)
        if echo { router.add(.get, "/v1/echo", .echo) }
        router.add(.get, "/readyz", .readyz)
        router.add(.get, "/metrics", .metrics)
        if database {
            router.add(.get, "/v1/ws", .ws)
            router.add(.get, "/api/v1/admin/live-chat/conversations", .conversations)
            router.add(.get, "/api/v1/sessions/{id}/messages", .messages)
            router.add(.patch, "/api/v1/sessions/{id}", .sessionPatch)
            router.add(.delete, "/api/v1/sessions/{id}", .sessionDelete)
            router.add(.get, "/api/v1/admin/live-chat/analytics", .analytics)
        }
        return router
    }

    /// What `route` answers to `request` on a connection of `loop`.
    static func answer(
        _ route: HTTPRoute, _ request: HTTPRequest, parameters: [String: String], context: ServerContext,
        loop: EventLoop
    ) -> HTTPAnswer {
        switch route {
        case .healthz:
            return .now(.json(.ok, #"{"status":"ok"}"#))
        case .metrics:
            var response = HTTPResponse(status: .ok, body: context.metrics.render())
            response.headers.append(("Content-Type", GatewayMetrics.contentType))
            return .now(response)
        case .echo:
            return .upgrade(context.echoWebSocket, EchoApplication())
        case .other:
            return .now(.error(.notFound, code: "not_found", message: "no such path"))
        case .readyz, .ws, .conversations, .messages, .sessionPatch, .sessionDelete, .analytics:
            // The router has these routes only with a database (ServerContext).
            guard let chat = context.chat else { return .now(.noDatabase) }
            switch route {
            case .readyz: return Readiness.check(logger: context.logger)
            case .ws: return .upgrade(context.chatWebSocket, ChatConnection(service: chat, loop: loop))
            default: return AdminAPI(chat: chat).handle(route, request, parameters: parameters)
            }
        }
    }
}
