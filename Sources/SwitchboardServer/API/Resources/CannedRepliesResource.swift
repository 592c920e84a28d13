import SwitchboardChat
import SwitchboardHTTP
import SwitchboardIdentifiers
import SwitchboardReaders

/// `/api/v1/canned-replies` (docs/protocol.md, "The agent's desk"): the
/// workspace's saved answers, listed by shortcut, saved, changed and
/// deleted by its operators and admins (the API's role rule); a visitor's
/// token is refused before any of this runs.
enum CannedRepliesResource {
    static let routes = [
        APIRoute(method: .get, pattern: "/api/v1/canned-replies", label: .cannedReplies, respond: list),
        APIRoute(method: .post, pattern: "/api/v1/canned-replies", label: .cannedReplyCreate, respond: create),
        APIRoute(method: .patch, pattern: "/api/v1/canned-replies/{id}", label: .cannedReplyPatch, respond: change),
        APIRoute(method: .delete, pattern: "/api/v1/canned-replies/{id}", label: .cannedReplyDelete, respond: delete),
    ]

    static func list(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let workspace = request.identity.workspaceID
        return .later { queries in
            respond {
                () throws(QueryError) in
                .apiJSON(.ok, CannedReplyJSON.list(try queries.cannedReplies(workspaceID: workspace)))
            }
        }
    }

    static func create(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let identity = request.identity
        let asked = try CannedReplyBody.creation(request.http)
        return .later { queries in
            respond {
                () throws(QueryError) in
                answer(
                    try queries.createCannedReply(
                        workspaceID: identity.workspaceID, shortcut: asked.shortcut, body: asked.body,
                        createdBy: identity.id),
                    status: .created, shortcut: asked.shortcut, id: nil)
            }
        }
    }

    static func change(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let workspace = request.identity.workspaceID
        let id = try replyID(request)
        let change = try CannedReplyBody.change(request.http)
        return .later { queries in
            respond {
                () throws(QueryError) in
                answer(
                    try queries.changeCannedReply(
                        id: id, workspaceID: workspace, shortcut: change.shortcut, body: change.body),
                    status: .ok, shortcut: change.shortcut ?? "", id: id)
            }
        }
    }

    static func delete(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let workspace = request.identity.workspaceID
        let id = try replyID(request)
        return .later { queries in
            respond {
                () throws(QueryError) in
                guard try queries.deleteCannedReply(id: id, workspaceID: workspace) else { return notFound(id) }
                return HTTPResponse(status: .noContent)
            }
        }
    }

    private static func answer(
        _ save: CannedReplySave, status: HTTPStatus, shortcut: String, id: String?
    )
        -> HTTPResponse
    {
        switch save {
        case .saved(let reply):
            return .apiJSON(status, CannedReplyJSON.one(reply))
        case .shortcutTaken:
            return .error(
                .conflict, code: "conflict", message: "the workspace has a canned reply \"/\(shortcut)\" already")
        case .full:
            return .api(.badRequest("a workspace has at most \(ChatQueries.maxCannedReplies) canned replies"))
        case .notFound:
            return notFound(id ?? "")
        }
    }

    /// The `{id}` of a canned reply's path, canonical; anything else is no reply (404).
    private static func replyID(_ request: APIRequest) throws(ChatError) -> String {
        guard let raw = request.parameters["id"], let id = UUIDText.canonical(raw) else {
            throw ChatError(.notFound, "no such canned reply")
        }
        return id
    }

    private static func notFound(_ id: String) -> HTTPResponse {
        .api(ChatError(.notFound, "no canned reply \(id)"))
    }
}
