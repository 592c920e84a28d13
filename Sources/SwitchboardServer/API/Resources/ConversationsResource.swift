import SwitchboardChat
import SwitchboardMetrics
import SwitchboardReaders

/// `GET /api/v1/admin/live-chat/conversations`: the inbox, keyset-paged.
enum ConversationsResource {
    static let routes = [
        APIRoute(method: .get, pattern: "/api/v1/admin/live-chat/conversations", label: .conversations, respond: list)
    ]

    static func list(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let query = APIParameters(request.http)
        let statuses = try query.statuses()
        let assigned = try query.assigned(as: request.identity.id)
        let limit = Int(try query.integer("limit", in: 1...200, default: 50))
        let cursor = query.string("cursor")
        let workspace = request.identity.workspaceID
        return .later { queries in
            respond {
                () throws(QueryError) in
                let page = try queries.inbox(
                    workspaceID: workspace, statuses: statuses, assigned: assigned, limit: limit, cursor: cursor)
                var encoder = ServerFrameEncoder()
                return .apiJSON(.ok, encoder.sessionsPage(page.sessions, nextCursor: page.nextCursor))
            }
        }
    }
}
