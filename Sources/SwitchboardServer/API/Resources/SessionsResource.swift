import SwitchboardChat
import SwitchboardChatCore
import SwitchboardHTTP
import SwitchboardMetrics
import SwitchboardReaders

/// `GET /api/v1/sessions/{id}`: one session as stored, its `context`
/// included (the console's visitor panel); `PATCH` and `DELETE`: a session's
/// title, status and assignment (each change a participant sees again stored
/// as its event), and its soft delete. Every change reaches the consoles as
/// `session.updated`.
enum SessionsResource {
    static let routes = [
        APIRoute(method: .get, pattern: "/api/v1/sessions/{id}", label: .session, visitors: true, respond: show),
        APIRoute(method: .patch, pattern: "/api/v1/sessions/{id}", label: .sessionPatch, respond: change),
        APIRoute(method: .delete, pattern: "/api/v1/sessions/{id}", label: .sessionDelete, respond: delete),
    ]

    /// Staff of the workspace, or the session's own visitor (as the history).
    static func show(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let sessionID = try request.sessionID()
        let identity = request.identity
        return .later { queries in
            respond {
                () throws(QueryError) in
                switch try visibleSession(sessionID, to: identity, in: queries) {
                case .refused(let refusal): return refusal
                case .visible(let session):
                    var encoder = ServerFrameEncoder()
                    return .apiJSON(.ok, encoder.sessionBody(session))
                }
            }
        }
    }

    static func change(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let sessionID = try request.sessionID()
        let change = try SessionPatch(request.http).change
        let (identity, chat) = (request.identity, request.chat)
        return .later { queries in
            respond {
                () throws(QueryError) in
                if case .refused(let refusal) = try visibleSession(sessionID, to: identity, in: queries) {
                    return refusal
                }
                guard let result = try queries.changeSession(sessionID: sessionID, change, by: identity.participant)
                else { return .api(ChatError(.notFound, "no session \(sessionID)")) }
                if result.changed {
                    let byHand = change.assignment != nil || change.status == .assigned
                    chat.announce(result.session, event: result.event, byHand: byHand)
                }
                var encoder = ServerFrameEncoder()
                return .apiJSON(.ok, encoder.sessionBody(result.session))
            }
        }
    }

    /// Soft delete: the rows stay, the session answers `not_found` from now on.
    static func delete(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let sessionID = try request.sessionID()
        let (identity, chat) = (request.identity, request.chat)
        return .later { queries in
            respond {
                () throws(QueryError) in
                if case .refused(let refusal) = try visibleSession(sessionID, to: identity, in: queries) {
                    return refusal
                }
                guard let deleted = try queries.softDeleteSession(sessionID: sessionID) else {
                    return .api(ChatError(.notFound, "no session \(sessionID)"))
                }
                // Consoles and joined clients hear of it once, as session.updated with "deleted": true.
                chat.announce(deleted)
                return HTTPResponse(status: .noContent)
            }
        }
    }
}
