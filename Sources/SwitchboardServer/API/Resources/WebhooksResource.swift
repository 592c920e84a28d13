import SwitchboardChat
import SwitchboardHTTP
import SwitchboardIdentifiers
import SwitchboardReaders

/// `/api/v1/webhooks` (docs/webhooks.md, "Management API"): an admin's
/// endpoints, listed, created (the answer shows the new secret, once),
/// read, changed and deleted. Every database call, the secret's making and
/// the target check run on the reader pool.
enum WebhooksResource {
    static let routes = [
        APIRoute(method: .get, pattern: "/api/v1/webhooks", label: .webhooks, respond: list),
        APIRoute(method: .post, pattern: "/api/v1/webhooks", label: .webhookCreate, respond: create),
        APIRoute(method: .get, pattern: "/api/v1/webhooks/{id}", label: .webhook, respond: show),
        APIRoute(method: .patch, pattern: "/api/v1/webhooks/{id}", label: .webhookPatch, respond: change),
        APIRoute(method: .delete, pattern: "/api/v1/webhooks/{id}", label: .webhookDelete, respond: delete),
    ]

    static func list(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let workspace = try requireAdmin(request)
        return .later { queries in
            respond {
                () throws(QueryError) in
                .apiJSON(.ok, WebhookJSON.list(try queries.webhookEndpoints(workspaceID: workspace)))
            }
        }
    }

    static func create(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let workspace = try requireAdmin(request)
        let asked = try WebhookEndpointBody.creation(request.http)
        let hooks = request.chat.webhooks
        return .later { queries in
            respond {
                () throws(QueryError) in
                if let refusal = hooks.refusal(of: asked.url) { return privateTarget(refusal) }
                let secret = EndpointSecret.make()
                guard
                    let endpoint = try queries.createWebhookEndpoint(
                        workspaceID: workspace,
                        NewWebhookEndpoint(
                            url: asked.url, description: asked.description, events: asked.events, secret: secret))
                else {
                    return .api(
                        .badRequest("a workspace has at most \(ChatQueries.maxWebhookEndpoints) webhook endpoints"))
                }
                return .apiJSON(.created, WebhookJSON.one(endpoint, secret: secret))
            }
        }
    }

    static func show(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let workspace = try requireAdmin(request)
        let id = try endpointID(request)
        return .later { queries in
            respond {
                () throws(QueryError) in
                guard let endpoint = try queries.webhookEndpoint(id: id, workspaceID: workspace) else {
                    return notFound(id)
                }
                return .apiJSON(.ok, WebhookJSON.one(endpoint))
            }
        }
    }

    static func change(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let workspace = try requireAdmin(request)
        let id = try endpointID(request)
        let change = try WebhookEndpointBody.change(request.http)
        let hooks = request.chat.webhooks
        return .later { queries in
            respond {
                () throws(QueryError) in
                if let url = change.url, let refusal = hooks.refusal(of: url) { return privateTarget(refusal) }
                guard let endpoint = try queries.changeWebhookEndpoint(id: id, workspaceID: workspace, change) else {
                    return notFound(id)
                }
                // Enabled again: what waited for it is due now.
                if change.enabled == true { hooks.outboxHasWork() }
                return .apiJSON(.ok, WebhookJSON.one(endpoint))
            }
        }
    }

    /// Soft delete: no more events, and what was still pending fails.
    static func delete(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let workspace = try requireAdmin(request)
        let id = try endpointID(request)
        return .later { queries in
            respond {
                () throws(QueryError) in
                guard try queries.deleteWebhookEndpoint(id: id, workspaceID: workspace) else { return notFound(id) }
                return HTTPResponse(status: .noContent)
            }
        }
    }

    /// Webhooks are the admins': the workspace of one, or 403.
    static func requireAdmin(_ request: APIRequest) throws(ChatError) -> String {
        guard request.identity.role == .admin else {
            throw ChatError(.forbidden, "only an admin may manage webhooks")
        }
        return request.identity.workspaceID
    }

    /// The `{id}` of a webhook path, canonical; anything else is no endpoint (404).
    static func endpointID(_ request: APIRequest) throws(ChatError) -> String {
        guard let raw = request.parameters["id"], let id = UUIDText.canonical(raw) else {
            throw ChatError(.notFound, "no such webhook endpoint")
        }
        return id
    }

    static func notFound(_ id: String) -> HTTPResponse {
        .api(ChatError(.notFound, "no webhook endpoint \(id)"))
    }

    /// The target check's refusal: 400 with its own code, so that a client can tell it from a typo.
    static func privateTarget(_ reason: String) -> HTTPResponse {
        .error(.badRequest, code: "private_target", message: reason)
    }
}
