import SwitchboardChat
import SwitchboardMetrics
import SwitchboardReaders
import SwitchboardRouting

/// `GET /api/v1/operators`: every operator and admin seen in the workspace,
/// as routing sees them (status, connected, load, capacity). `PATCH
/// /api/v1/operators/{id}`: an operator's capacity (admin) or status (admin,
/// or the operator itself), through `RoutingService` like `presence.set`, so
/// a pass follows (a raise drains the queue, `offline` gives sessions back).
enum OperatorsResource {
    static let routes = [
        APIRoute(method: .get, pattern: "/api/v1/operators", label: .operators, respond: list),
        APIRoute(method: .patch, pattern: "/api/v1/operators/{id}", label: .operatorPatch, respond: change),
    ]

    /// The list's bound: a page larger than any team, so that no workspace grows an unbounded body.
    static let maxListed = 1000

    static func list(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let workspace = request.identity.workspaceID
        let routing = request.chat.routing
        return .later { queries in
            respond {
                () throws(QueryError) in
                let operators = try queries.operatorPresence(
                    workspaceID: workspace, defaultCapacity: routing.settings.maxSessionsPerOperator,
                    liveSeconds: routing.liveSeconds)
                return .apiJSON(.ok, OperatorsBody.list(operators.prefix(maxListed)))
            }
        }
    }

    static func change(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        guard let operatorID = request.parameters["id"], !operatorID.isEmpty, operatorID.utf8.count <= 128 else {
            throw ChatError(.notFound, "no such operator")
        }
        let patch = try OperatorPatch(request.http)
        if let refusal = patch.refusal(by: request.identity, of: operatorID) { throw refusal }
        let workspace = request.identity.workspaceID
        let routing = request.chat.routing
        return .later { queries in
            respond {
                () throws(QueryError) in
                var presence: OperatorPresence?
                switch patch.capacity {
                case .unchanged: break
                case .own(let capacity):
                    presence = try routing.setCapacity(capacity, of: operatorID, in: workspace, using: queries)
                case .gatewayDefault:
                    presence = try routing.setCapacity(nil, of: operatorID, in: workspace, using: queries)
                }
                if let status = patch.status {
                    presence = try routing.setStatus(status, of: operatorID, in: workspace, using: queries)
                }
                guard let presence else { return .api(ChatError(.notFound, "no operator \(operatorID)")) }
                return .apiJSON(.ok, OperatorsBody.one(presence))
            }
        }
    }
}
