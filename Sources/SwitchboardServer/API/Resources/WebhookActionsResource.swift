import SwitchboardChat
import SwitchboardHTTP
import SwitchboardJSON
import SwitchboardReaders
import SwitchboardWebhooks

/// What an admin does to one endpoint besides changing it: send it a test
/// event (`POST /api/v1/webhooks/{id}/test`), and rotate its secret
/// (`POST /api/v1/webhooks/{id}/rotate-secret`, optional body
/// `{"overlap_s": 0..604800}`, default a day), the new one shown once.
enum WebhookActionsResource {
    static let routes = [
        APIRoute(method: .post, pattern: "/api/v1/webhooks/{id}/test", label: .webhookTest, respond: test),
        APIRoute(
            method: .post, pattern: "/api/v1/webhooks/{id}/rotate-secret", label: .webhookRotateSecret,
            respond: rotate),
    ]

    /// How long deliveries carry the replaced secret's signature too, unless the admin says.
    static let defaultOverlapSeconds = 86_400
    static let maxOverlapSeconds = 7 * 86_400

    static func test(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let workspace = try WebhooksResource.requireAdmin(request)
        let id = try WebhooksResource.endpointID(request)
        let hooks = request.chat.webhooks
        return .later { queries in
            respond {
                () throws(QueryError) in
                guard let event = try queries.sendWebhookTestEvent(endpointID: id, workspaceID: workspace) else {
                    return WebhooksResource.notFound(id)
                }
                hooks.outboxHasWork()
                return .apiJSON(.accepted, WebhookJSON.event(id: event, type: WebhookTestEvent.type))
            }
        }
    }

    static func rotate(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let workspace = try WebhooksResource.requireAdmin(request)
        let id = try WebhooksResource.endpointID(request)
        let overlap = try overlapSeconds(request.http)
        return .later { queries in
            respond {
                () throws(QueryError) in
                let secret = EndpointSecret.make()
                guard
                    let endpoint = try queries.rotateWebhookSecret(
                        id: id, workspaceID: workspace, secret: secret, overlapSeconds: overlap)
                else { return WebhooksResource.notFound(id) }
                return .apiJSON(.ok, WebhookJSON.one(endpoint, secret: secret))
            }
        }
    }

    /// `overlap_s` of the body, which may be absent (empty).
    private static func overlapSeconds(_ request: HTTPRequest) throws(ChatError) -> Int {
        guard !request.body.isEmpty else { return defaultOverlapSeconds }
        let object = try JSONBody.object(request, maxBytes: 1024, allowed: ["overlap_s"])
        guard let raw = object["overlap_s"], !raw.isNull else { return defaultOverlapSeconds }
        // Any JSON spelling of a whole number (`60`, `60.0`, `6e1`), as JSON Schema's `integer` takes them.
        guard case .number(let number) = raw, let value = number.double, value == value.rounded(),
            (0...Double(maxOverlapSeconds)).contains(value)
        else { throw .badRequest("\"overlap_s\" must be an integer from 0 to \(maxOverlapSeconds)") }
        return Int(value)
    }
}
