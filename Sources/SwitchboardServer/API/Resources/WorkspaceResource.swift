import SwitchboardChat
import SwitchboardHTTP
import SwitchboardJSON
import SwitchboardReaders

/// `GET` and `PATCH /api/v1/workspace`: the caller's workspace's settings,
/// `{"workspace":{"id","csat_enabled"}}`. Everyone on staff reads them; admins
/// change them (`{"csat_enabled": bool}`: whether a closed conversation's
/// visitor is asked for a rating).
enum WorkspaceResource {
    static let routes = [
        APIRoute(method: .get, pattern: "/api/v1/workspace", label: .workspace, respond: show),
        APIRoute(method: .patch, pattern: "/api/v1/workspace", label: .workspacePatch, respond: change),
    ]

    static func show(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let workspace = request.identity.workspaceID
        return .later { queries in
            respond {
                () throws(QueryError) in
                .apiJSON(.ok, body(workspace, csatEnabled: try queries.csatEnabled(workspaceID: workspace)))
            }
        }
    }

    static func change(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        guard request.identity.role == .admin else {
            throw ChatError(.forbidden, "only an admin may change the workspace's settings")
        }
        let workspace = request.identity.workspaceID
        let object = try JSONBody.object(request.http, maxBytes: 1024, allowed: ["csat_enabled"])
        guard case .bool(let enabled)? = object["csat_enabled"] else {
            throw .badRequest("\"csat_enabled\" must be true or false")
        }
        return .later { queries in
            respond {
                () throws(QueryError) in
                try queries.setCsatEnabled(workspaceID: workspace, enabled)
                return .apiJSON(.ok, body(workspace, csatEnabled: enabled))
            }
        }
    }

    private static func body(_ workspace: String, csatEnabled: Bool) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("workspace")
        writer.beginObject()
        writer.key("id")
        writer.string(workspace)
        writer.key("csat_enabled")
        writer.bool(csatEnabled)
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }
}
