import SwitchboardHTTP
import SwitchboardIO
import SwitchboardMetrics
import SwitchboardWeb

/// The gateway's paths. Each maps to an `HTTPRoute`, which is also the
/// `route` label its requests are counted under. The JSON API's routes are a
/// table of their own (`APIRoutes`: one file per resource, authentication
/// and error bodies applied once around them); a new resource is its file,
/// its label in `HTTPRoute`, and its line in `APIRoutes.all`.
enum Routes {
    static func router(_ configuration: Configuration, database: Bool) -> HTTPRouter<HTTPRoute> {
        var router = HTTPRouter<HTTPRoute>()
        router.add(.get, "/healthz", .healthz)
        if configuration.echoEndpoint { router.add(.get, "/v1/echo", .echo) }
        router.add(.get, "/readyz", .readyz)
        router.add(.get, "/metrics", .metrics)
        if configuration.webEnabled {
            _ = WebFiles.gzipped  // compressed now, not on the first request's loop turn
            for path in WebAssets.byPath.keys { router.add(.get, path, .web) }
            // A folder's page without its slash: redirected there, where its relative links work.
            for path in WebAssets.byPath.keys where path.count > 1 && path.hasSuffix("/") {
                router.add(.get, String(path.dropLast()), .web)
            }
        }
        if configuration.devTokens { router.add(.post, "/dev/token", .devToken) }
        if database {
            router.add(.get, "/v1/ws", .ws)
            for route in APIRoutes.all {
                router.add(route.method, route.pattern, route.label)
                router.add(.options, route.pattern, .preflight)
            }
            if configuration.attachmentsEnabled {
                for (method, pattern, label) in AttachmentRoutes.all {
                    router.add(method, pattern, label)
                    router.add(.options, pattern, .preflight)
                }
            }
        }
        return router
    }

    /// What `route` answers to `request` on a connection of `loop`.
    static func answer(
        _ route: HTTPRoute, _ request: HTTPRequest, parameters: [String: String], context: ServerContext,
        loop: some ConnectionLoop
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
        case .web:
            if let asset = WebAssets.byPath[request.path] { return .now(WebFiles.answer(request, asset)) }
            return .now(WebFiles.redirect(to: request.path + "/"))
        case .devToken:
            return .now(DevTokens(context.configuration).answer(request))
        case .preflight:
            return .now(CORS.preflight(request, allowedOrigins: context.allowedOrigins))
        case .other:
            return .now(.error(.notFound, code: "not_found", message: "no such path"))
        case .readyz, .ws:
            // The router has these routes only with a database (ServerContext).
            guard let chat = context.chat else { return .now(.noDatabase) }
            if route == .ws { return .upgrade(context.chatWebSocket, ChatConnection(service: chat, loop: loop)) }
            return Readiness.check(cluster: chat.cluster, logger: context.logger)
        case .attachmentUpload, .attachment, .attachmentThumbnail:
            return AttachmentRoutes.answer(route, request, parameters: parameters, service: context.attachments)
        case .conversations, .messages, .sessionPatch, .sessionDelete, .analytics, .operators, .operatorPatch,
            .businessHours, .businessHoursPut, .webhooks, .webhookCreate, .webhook, .webhookPatch, .webhookDelete,
            .webhookTest, .webhookRotateSecret, .webhookDeliveries, .webhookDeliveryRetry, .webhookDeliveriesRetry,
            .cannedReplies, .cannedReplyCreate, .cannedReplyPatch, .cannedReplyDelete, .transcript, .session,
            .workspace, .workspacePatch, .search:
            // The JSON API: its own table (API/Resources), routed only with a database.
            guard let chat = context.chat, let api = APIRoutes.byLabel[route] else { return .now(.noDatabase) }
            return APIRoutes.answer(api, request, parameters: parameters, chat: chat)
        }
    }
}
