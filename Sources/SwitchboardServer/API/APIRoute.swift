import SwitchboardAuth
import SwitchboardChat
import SwitchboardChatCore
import SwitchboardHTTP
import SwitchboardIdentifiers
import SwitchboardMetrics
import SwitchboardReaders
import SwitchboardSystem

/// One request of the JSON API (docs/protocol.md "HTTP API"), authenticated:
/// what a resource's responder is given.
struct APIRequest {
    let http: HTTPRequest
    /// The route's `{name}` segments, percent-decoded.
    let parameters: [String: String]
    let identity: Identity
    let chat: ChatService

    /// The `{id}` of a session path, canonical; anything else is no session (404).
    func sessionID() throws(ChatError) -> String {
        guard let raw = parameters["id"], let id = UUIDText.canonical(raw) else {
            throw ChatError(.notFound, "no such session")
        }
        return id
    }
}

/// One method and path of the API and the function that answers it: checks
/// on the loop, the query (if any) on the reader pool (`HTTPAnswer.later`).
struct APIRoute: Sendable {
    let method: HTTPMethod
    let pattern: String
    /// Its label in the request counter (and its key in the router).
    let label: HTTPRoute
    /// Visitors may call it too (their own sessions only); else operators and admins.
    var visitors = false
    let respond: @Sendable (APIRequest) throws(ChatError) -> HTTPAnswer
}

/// The API's routes, one resource per file (`API/Resources/`), and what is
/// applied around every one of them: the bearer token, the role rule, and
/// errors as `{"error": ...}` bodies. (CORS and request metrics are applied
/// around every route by the HTTP handler.)
enum APIRoutes {
    static let all: [APIRoute] =
        ConversationsResource.routes + MessagesResource.routes + SessionsResource.routes
        + AnalyticsResource.routes + OperatorsResource.routes + BusinessHoursResource.routes
        + WebhooksResource.routes + WebhookActionsResource.routes + WebhookDeliveriesResource.routes
        + CannedRepliesResource.routes + TranscriptResource.routes + WorkspaceResource.routes
        + SearchResource.routes

    static let byLabel: [HTTPRoute: APIRoute] = Dictionary(
        uniqueKeysWithValues: all.map { ($0.label, $0) })

    static func answer(
        _ route: APIRoute, _ request: HTTPRequest, parameters: [String: String], chat: ChatService
    ) -> HTTPAnswer {
        do throws(ChatError) {
            let identity = try authenticate(request, chat.verifier)
            if !route.visitors, let denied = Access.requireStaff(identity, action: "the HTTP API", ref: nil) {
                throw denied
            }
            return try route.respond(APIRequest(http: request, parameters: parameters, identity: identity, chat: chat))
        } catch {
            return .now(.api(error))
        }
    }

    /// `Authorization: Bearer <JWT>`: a valid token of any role.
    static func authenticate(_ request: HTTPRequest, _ verifier: TokenVerifier) throws(ChatError) -> Identity {
        guard let header = request.headers.first("Authorization") else {
            throw ChatError(.unauthorized, "an Authorization: Bearer token is required")
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw ChatError(.unauthorized, "the Authorization header must be \"Bearer <token>\"")
        }
        do {
            return try verifier.verify(String(parts[1]), now: UnixClock.nowSeconds())
        } catch {
            throw ChatError(.unauthorized, "\(error)")
        }
    }
}

/// The session if it exists and `identity` may see it; otherwise the 404 or 403 to send.
func visibleSession(
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

enum SessionLookup {
    case visible(SessionInfo)
    case refused(HTTPResponse)
}

/// Runs a reader job's body; a database failure becomes 503 (or 400 for a bad cursor).
func respond(_ body: () throws(QueryError) -> HTTPResponse) -> HTTPResponse {
    do throws(QueryError) {
        return try body()
    } catch {
        return .api(ChatError(error))
    }
}
