import SwitchboardAuth
import SwitchboardChat
import SwitchboardChatCore
import SwitchboardHTTP
import SwitchboardIdentifiers
import SwitchboardJSON
import SwitchboardMetrics
import SwitchboardReaders
import SwitchboardSystem

/// The JSON API of docs/protocol.md "HTTP API": bearer tokens of operators and
/// admins, scoped to the token's workspace, with the socket's access rules.
/// One addition: a visitor may read the history of the sessions it opened
/// (`GET .../messages`), which its SDK pages when a join's replay was
/// truncated. Validation happens on the loop; every query runs on the reader pool.
struct AdminAPI {
    let chat: ChatService

    func handle(_ route: HTTPRoute, _ request: HTTPRequest, parameters: [String: String]) -> HTTPAnswer {
        let identity: Identity
        do throws(ChatError) {
            identity = try authenticate(request)
            if route != .messages, let denied = Access.requireStaff(identity, action: "the HTTP API", ref: nil) {
                throw denied
            }
        } catch {
            return .now(.api(error))
        }
        do throws(ChatError) {
            switch route {
            case .conversations: return try conversations(request, as: identity)
            case .messages: return try messages(request, sessionID: parameters["id"], as: identity)
            case .sessionPatch: return try patch(request, sessionID: parameters["id"], as: identity)
            case .sessionDelete: return try delete(sessionID: parameters["id"], as: identity)
            case .analytics: return try analytics(request, as: identity)
            case .operators: return operators(as: identity)
            default: return .now(.api(ChatError(.notFound, "no such path")))
            }
        } catch {
            return .now(.api(error))
        }
    }

    /// `Authorization: Bearer <JWT>`: a valid token of any role.
    private func authenticate(_ request: HTTPRequest) throws(ChatError) -> Identity {
        guard let header = request.headers.first("Authorization") else {
            throw ChatError(.unauthorized, "an Authorization: Bearer token is required")
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw ChatError(.unauthorized, "the Authorization header must be \"Bearer <token>\"")
        }
        let identity: Identity
        do {
            identity = try chat.verifier.verify(String(parts[1]), now: UnixClock.nowSeconds())
        } catch {
            throw ChatError(.unauthorized, "\(error)")
        }
        return identity
    }

    private func sessionID(_ raw: String?) throws(ChatError) -> String {
        guard let raw, let id = UUIDText.canonical(raw) else { throw ChatError(.notFound, "no such session") }
        return id
    }

    // MARK: GET /api/v1/admin/live-chat/conversations

    private func conversations(_ request: HTTPRequest, as identity: Identity) throws(ChatError) -> HTTPAnswer {
        let query = APIParameters(request)
        let statuses = try query.statuses()
        let assigned = try query.assigned(as: identity.id)
        let limit = Int(try query.integer("limit", in: 1...200, default: 50))
        let cursor = query.string("cursor")
        let workspace = identity.workspaceID
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

    // MARK: GET /api/v1/sessions/{id}/messages

    private func messages(
        _ request: HTTPRequest, sessionID raw: String?, as identity: Identity
    ) throws(ChatError)
        -> HTTPAnswer
    {
        let sessionID = try sessionID(raw)
        let query = APIParameters(request)
        let afterSeq = try query.integer("after_seq", in: 0...Int64.max, default: 0)
        let limit = Int(try query.integer("limit", in: 1...1000, default: 100))
        return .later { queries in
            respond {
                () throws(QueryError) in
                if case .refused(let refusal) = try visibleSession(sessionID, to: identity, in: queries) {
                    return refusal
                }
                let messages = try queries.messages(sessionID: sessionID, afterSeq: afterSeq, limit: limit)
                let next = messages.count == limit ? messages.last?.seq : nil
                var encoder = ServerFrameEncoder()
                return .apiJSON(.ok, encoder.messagesPage(sessionID: sessionID, messages, nextAfterSeq: next))
            }
        }
    }

    // MARK: PATCH /api/v1/sessions/{id}

    private func patch(
        _ request: HTTPRequest, sessionID raw: String?, as identity: Identity
    ) throws(ChatError)
        -> HTTPAnswer
    {
        let sessionID = try sessionID(raw)
        let change = try SessionPatch(request).change
        let chat = self.chat
        let actor = identity.participant
        return .later { queries in
            respond {
                () throws(QueryError) in
                if case .refused(let refusal) = try visibleSession(sessionID, to: identity, in: queries) {
                    return refusal
                }
                guard let result = try queries.changeSession(sessionID: sessionID, change, by: actor) else {
                    return .api(ChatError(.notFound, "no session \(sessionID)"))
                }
                if result.changed { chat.announce(result.session, event: result.event) }
                var encoder = ServerFrameEncoder()
                return .apiJSON(.ok, encoder.sessionBody(result.session))
            }
        }
    }

    // MARK: DELETE /api/v1/sessions/{id}

    private func delete(sessionID raw: String?, as identity: Identity) throws(ChatError) -> HTTPAnswer {
        let sessionID = try sessionID(raw)
        let chat = self.chat
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

    // MARK: GET /api/v1/operators

    private func operators(as identity: Identity) -> HTTPAnswer {
        let workspace = identity.workspaceID
        return .later { queries in
            respond {
                () throws(QueryError) in
                let operators = try queries.operators(workspaceID: workspace, limit: 1000)
                var encoder = ServerFrameEncoder()
                return .apiJSON(.ok, encoder.operatorsPage(operators))
            }
        }
    }

    // MARK: GET /api/v1/admin/live-chat/analytics

    private func analytics(_ request: HTTPRequest, as identity: Identity) throws(ChatError) -> HTTPAnswer {
        let query = APIParameters(request)
        let from = try query.timestamp("from")
        let to = try query.timestamp("to")
        let workspace = identity.workspaceID
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

/// The session if it exists and `identity` may see it; otherwise the 404 or 403 to send.
private func visibleSession(
    _ sessionID: String, to identity: Identity, in queries: ChatQueries
) throws(QueryError)
    -> SessionLookup
{
    guard let session = try queries.session(id: sessionID) else {
        return .refused(.api(ChatError(.notFound, "no session \(sessionID)")))
    }
    if let denied = Access.checkView(identity, session, ref: nil) { return .refused(.api(denied)) }
    return .visible(session)
}

private enum SessionLookup {
    case visible(SessionInfo)
    case refused(HTTPResponse)
}

/// Runs a reader job's body; a database failure becomes 503 (or 400 for a bad cursor).
private func respond(_ body: () throws(QueryError) -> HTTPResponse) -> HTTPResponse {
    do throws(QueryError) {
        return try body()
    } catch {
        return .api(ChatError(error))
    }
}
