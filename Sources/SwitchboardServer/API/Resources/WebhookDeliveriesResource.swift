import SwitchboardChat
import SwitchboardHTTP
import SwitchboardJSON
import SwitchboardReaders

/// An endpoint's delivery log (`GET /api/v1/webhooks/{id}/deliveries`,
/// newest first: `status`, `limit`, `cursor`), and its retries: one
/// delivery now (`POST .../deliveries/{delivery_id}/retry`), or every
/// failed one of events since a time (`POST .../deliveries/retry`,
/// `{"since": RFC 3339}`) for a receiver that is back.
enum WebhookDeliveriesResource {
    static let routes = [
        APIRoute(
            method: .get, pattern: "/api/v1/webhooks/{id}/deliveries", label: .webhookDeliveries, respond: list),
        APIRoute(
            method: .post, pattern: "/api/v1/webhooks/{id}/deliveries/{delivery_id}/retry",
            label: .webhookDeliveryRetry, respond: retryOne),
        APIRoute(
            method: .post, pattern: "/api/v1/webhooks/{id}/deliveries/retry", label: .webhookDeliveriesRetry,
            respond: retryFailed),
    ]

    static let defaultPage: Int64 = 50
    static let maxPage: Int64 = 200

    static func list(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let workspace = try WebhooksResource.requireAdmin(request)
        let id = try WebhooksResource.endpointID(request)
        let parameters = APIParameters(request.http)
        let limit = Int(try parameters.integer("limit", in: 1...maxPage, default: defaultPage))
        let status = try self.status(parameters)
        let before = try cursor(parameters)
        return .later { queries in
            respond {
                () throws(QueryError) in
                guard try queries.webhookEndpoint(id: id, workspaceID: workspace) != nil else {
                    return WebhooksResource.notFound(id)
                }
                let page = try queries.webhookDeliveries(
                    endpointID: id, workspaceID: workspace, status: status, before: before, limit: limit)
                return .apiJSON(.ok, WebhookJSON.deliveries(page.deliveries, next: page.next))
            }
        }
    }

    /// `status=pending|succeeded|failed`; absent: all.
    private static func status(_ parameters: APIParameters) throws(ChatError) -> WebhookDelivery.Status? {
        guard let text = parameters.string("status") else { return nil }
        guard let status = WebhookDelivery.Status(rawValue: text) else {
            throw .badRequest("\"status\" must be pending, succeeded or failed")
        }
        return status
    }

    /// `cursor`: a page's `next_cursor` (a delivery id: the next page holds older ones).
    private static func cursor(_ parameters: APIParameters) throws(ChatError) -> Int64? {
        guard let text = parameters.string("cursor") else { return nil }
        guard let cursor = deliveryID(text) else {
            throw .badRequest("\"cursor\" must be a next_cursor this API returned")
        }
        return cursor
    }

    /// A delivery id as the API spells it, `^[1-9][0-9]{0,17}$` (so it fits an Int64); nil for anything else.
    static func deliveryID(_ text: String) -> Int64? {
        let digits = Array(text.utf8)
        guard (1...18).contains(digits.count), digits[0] != UInt8(ascii: "0"),
            digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int64(text)
    }

    static func retryOne(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let workspace = try WebhooksResource.requireAdmin(request)
        let id = try WebhooksResource.endpointID(request)
        guard let delivery = request.parameters["delivery_id"].flatMap(deliveryID) else {
            throw ChatError(.notFound, "no such delivery")
        }
        let hooks = request.chat.webhooks
        return .later { queries in
            respond {
                () throws(QueryError) in
                guard
                    let retried = try queries.retryWebhookDelivery(id: delivery, endpointID: id, workspaceID: workspace)
                else { return .api(ChatError(.notFound, "no delivery \(delivery) of webhook endpoint \(id)")) }
                hooks.outboxHasWork()
                return .apiJSON(.accepted, WebhookJSON.delivery(retried))
            }
        }
    }

    static func retryFailed(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let workspace = try WebhooksResource.requireAdmin(request)
        let id = try WebhooksResource.endpointID(request)
        let object = try JSONBody.object(request.http, maxBytes: 1024, allowed: ["since"])
        guard let since = try JSONBody.string(object, "since") else {
            throw .badRequest("\"since\" is required: an RFC 3339 time such as 2026-11-22T08:00:00Z")
        }
        guard APIParameters.isRFC3339(since), let utc = RFC3339Time(since)?.postgresUTC else {
            throw .badRequest("\"since\" must be an RFC 3339 time such as 2026-11-22T08:00:00Z")
        }
        let hooks = request.chat.webhooks
        return .later { queries in
            respond {
                () throws(QueryError) in
                guard try queries.webhookEndpoint(id: id, workspaceID: workspace) != nil else {
                    return WebhooksResource.notFound(id)
                }
                let count = try queries.retryFailedWebhookDeliveries(
                    endpointID: id, workspaceID: workspace, sinceUTC: utc)
                if count > 0 { hooks.outboxHasWork() }
                return .apiJSON(.accepted, WebhookJSON.retried(count))
            }
        }
    }
}
