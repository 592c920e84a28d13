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
        let visitor = query.string("visitor_id")
        if let visitor, visitor.isEmpty || visitor.unicodeScalars.count > 128 || visitor.utf8.contains(0) {
            throw .badRequest("\"visitor_id\" must be 1 to 128 characters")
        }
        let workspace = request.identity.workspaceID
        // Each operator's own read positions: the console's unread counts.
        let reader = request.identity.id
        return .later { queries in
            respond {
                () throws(QueryError) in
                let page = try queries.inbox(
                    workspaceID: workspace, statuses: statuses, assigned: assigned, visitorID: visitor,
                    readerID: reader, limit: limit,
                    cursor: cursor)
                var encoder = ServerFrameEncoder()
                return .apiJSON(.ok, encoder.sessionsPage(page.sessions, nextCursor: page.nextCursor))
            }
        }
    }
}
