import SwitchboardChat
import SwitchboardMetrics
import SwitchboardReaders

/// `GET /api/v1/sessions/{id}/messages`: a session's history, oldest first.
/// Visitors may page the history of their own sessions too (the SDK does,
/// when a join's replay was truncated), without the private notes.
enum MessagesResource {
    static let routes = [
        APIRoute(
            method: .get, pattern: "/api/v1/sessions/{id}/messages", label: .messages, visitors: true, respond: list)
    ]

    static func list(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let sessionID = try request.sessionID()
        let query = APIParameters(request.http)
        let afterSeq = try query.integer("after_seq", in: 0...Int64.max, default: 0)
        let limit = Int(try query.integer("limit", in: 1...1000, default: 100))
        let identity = request.identity
        let links = request.chat.attachmentLinks
        return .later { queries in
            respond {
                () throws(QueryError) in
                if case .refused(let refusal) = try visibleSession(sessionID, to: identity, in: queries) {
                    return refusal
                }
                let messages = try queries.messages(
                    sessionID: sessionID, afterSeq: afterSeq, limit: limit, withNotes: identity.role != .visitor)
                let next = messages.count == limit ? messages.last?.seq : nil
                var encoder = ServerFrameEncoder(attachmentLinks: links)
                return .apiJSON(.ok, encoder.messagesPage(sessionID: sessionID, messages, nextAfterSeq: next))
            }
        }
    }
}
