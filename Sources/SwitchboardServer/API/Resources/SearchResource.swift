import SwitchboardChat
import SwitchboardReaders

/// `GET /api/v1/search?q=...&limit=...&cursor=...` (docs/protocol.md, "The
/// agent's desk"): the workspace's messages matching `q`, newest first, each
/// with its session and a highlighted snippet. Operators and admins search
/// every conversation of the workspace, private notes included; a visitor's
/// token searches its own conversations, without notes (the same rule as
/// its history).
enum SearchResource {
    static let routes = [
        APIRoute(method: .get, pattern: "/api/v1/search", label: .search, visitors: true, respond: search)
    ]

    /// The longest query, in characters (1 KiB of UTF-8 at most).
    static let maxQueryCharacters = 256

    static func search(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let parameters = APIParameters(request.http)
        let query = try self.query(parameters.string("q"))
        let limit = Int(try parameters.integer("limit", in: 1...50, default: 20))
        let cursor = parameters.string("cursor")
        let identity = request.identity
        let scope: SearchScope = identity.role == .visitor ? .visitor(id: identity.id) : .staff
        return .later { queries in
            respond {
                () throws(QueryError) in
                let page = try queries.search(
                    workspaceID: identity.workspaceID, query: query, scope: scope, limit: limit, cursor: cursor)
                return .apiJSON(.ok, SearchJSON.page(page))
            }
        }
    }

    /// Tab, line feed, vertical tab, form feed, carriage return, space: what
    /// docs/openapi.yaml's pattern counts as blank.
    private static let asciiWhiteSpace: Set<UInt8> = [9, 10, 11, 12, 13, 32]

    /// `q`: required, some text besides ASCII white space, at most
    /// `maxQueryCharacters` (docs/openapi.yaml counts characters), no NUL (PostgreSQL's text cannot hold one).
    static func query(_ raw: String?) throws(ChatError) -> String {
        guard let raw, raw.utf8.contains(where: { !asciiWhiteSpace.contains($0) }) else {
            throw .badRequest("\"q\" is required: the words to search for")
        }
        guard raw.unicodeScalars.count <= maxQueryCharacters, !raw.utf8.contains(0) else {
            throw .badRequest("\"q\" must be at most \(maxQueryCharacters) characters, without NUL")
        }
        return raw
    }
}
