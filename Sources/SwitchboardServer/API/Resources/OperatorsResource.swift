import SwitchboardChat
import SwitchboardMetrics
import SwitchboardReaders

/// `GET /api/v1/operators`: every operator and admin seen in the workspace.
enum OperatorsResource {
    static let routes = [APIRoute(method: .get, pattern: "/api/v1/operators", label: .operators, respond: list)]

    static func list(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let workspace = request.identity.workspaceID
        return .later { queries in
            respond {
                () throws(QueryError) in
                let operators = try queries.operators(workspaceID: workspace, limit: 1000)
                var encoder = ServerFrameEncoder()
                return .apiJSON(.ok, encoder.operatorsPage(operators))
            }
        }
    }
}
