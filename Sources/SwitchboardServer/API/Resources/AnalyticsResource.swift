import SwitchboardChat
import SwitchboardMetrics
import SwitchboardReaders

/// `GET /api/v1/admin/live-chat/analytics`: the workspace's figures over [from, to).
enum AnalyticsResource {
    static let routes = [
        APIRoute(method: .get, pattern: "/api/v1/admin/live-chat/analytics", label: .analytics, respond: figures)
    ]

    static func figures(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let query = APIParameters(request.http)
        let from = try query.timestamp("from")
        let to = try query.timestamp("to")
        let workspace = request.identity.workspaceID
        return .later { queries in
            respond {
                () throws(QueryError) in
                let figures = try queries.analytics(workspaceID: workspace, from: from.utc, to: to.utc)
                return .apiJSON(
                    .ok, AnalyticsBody.encode(figures, workspaceID: workspace, from: from.given, to: to.given))
            }
        }
    }
}
