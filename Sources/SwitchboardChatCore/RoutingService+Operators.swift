import SwitchboardChat
import SwitchboardReaders
import SwitchboardRouting

/// What presence frames, `GET/PATCH /api/v1/operators` and a visitor's
/// `availability` need of routing: each a job on a database thread whose
/// `then` runs there too (hand it to a loop with `LoopHandoff` when a
/// connection waits for it). Each returns false, and runs nothing, when no
/// thread can take the job.
extension RoutingService {
    /// A node that has not beaten for this long holds no connection that counts.
    package var liveSeconds: Int { 2 * settings.heartbeatSeconds + 1 }

    /// Every operator of `workspace` (or only `operatorID`) as routing sees it.
    package func presence(
        of workspace: String, operatorID: String? = nil,
        then finish: @escaping @Sendable (Result<[OperatorPresence], QueryError>) -> Void
    ) -> Bool {
        store.run { [self] queries in
            finish(
                Result { () throws(QueryError) in
                    try queries.operatorPresence(
                        workspaceID: workspace, operatorID: operatorID,
                        defaultCapacity: settings.maxSessionsPerOperator, liveSeconds: liveSeconds)
                })
        }
    }

    /// The queued sessions of `workspace`, oldest first: a session's place is its index plus one.
    package func queuePositions(
        _ workspace: String, then finish: @escaping @Sendable (Result<[String], QueryError>) -> Void
    ) -> Bool {
        store.run { queries in
            finish(
                Result { () throws(QueryError) in
                    try queries.queuedSessionIDs(workspaceID: workspace, limit: ChatQueries.queueHeadLimit)
                })
        }
    }

    /// The status `operatorID` chose; then its presence (nil: no such
    /// operator), and a pass: online may take from the queue, offline gives
    /// its sessions back.
    package func setStatus(
        _ status: OperatorStatus, of operatorID: String, in workspace: String,
        then finish: @escaping @Sendable (Result<OperatorPresence?, QueryError>) -> Void
    ) -> Bool {
        change(operatorID, in: workspace, then: finish) { queries throws(QueryError) in
            try queries.setOperatorStatus(workspaceID: workspace, operatorID: operatorID, status: status)
        }
    }

    /// The status `staff` chose for itself (`presence.set`; its row made if
    /// its hello is not written yet); then its presence, and a pass.
    package func setOwnStatus(
        _ status: OperatorStatus, of staff: Participant, in workspace: String,
        then finish: @escaping @Sendable (Result<OperatorPresence?, QueryError>) -> Void
    ) -> Bool {
        change(staff.id, in: workspace, then: finish) { queries throws(QueryError) in
            try queries.recordOwnStatus(workspaceID: workspace, staff: staff, status: status)
            return true
        }
    }

    /// `operatorID`'s own capacity (nil: `routing.max_sessions_per_operator`);
    /// then its presence (nil: no such operator), and a pass for what a raise freed.
    package func setCapacity(
        _ capacity: Int?, of operatorID: String, in workspace: String,
        then finish: @escaping @Sendable (Result<OperatorPresence?, QueryError>) -> Void
    ) -> Bool {
        change(operatorID, in: workspace, then: finish) { queries throws(QueryError) in
            try queries.setOperatorCapacity(workspaceID: workspace, operatorID: operatorID, capacity: capacity)
        }
    }

    private func change(
        _ operatorID: String, in workspace: String,
        then finish: @escaping @Sendable (Result<OperatorPresence?, QueryError>) -> Void,
        _ write: @escaping @Sendable (any RoutingQueries) throws(QueryError) -> Bool
    ) -> Bool {
        store.run { [self] queries in
            finish(Result { () throws(QueryError) in try changed(operatorID, in: workspace, queries, write) })
        }
    }

    /// `setStatus` for a caller already on a database thread with its own
    /// queries (`PATCH /api/v1/operators/{id}`): the same write, presence and pass.
    package func setStatus(
        _ status: OperatorStatus, of operatorID: String, in workspace: String, using queries: any RoutingQueries
    ) throws(QueryError) -> OperatorPresence? {
        try changed(operatorID, in: workspace, queries) { queries throws(QueryError) in
            try queries.setOperatorStatus(workspaceID: workspace, operatorID: operatorID, status: status)
        }
    }

    /// `setCapacity` for a caller already on a database thread (`PATCH /api/v1/operators/{id}`).
    package func setCapacity(
        _ capacity: Int?, of operatorID: String, in workspace: String, using queries: any RoutingQueries
    ) throws(QueryError) -> OperatorPresence? {
        try changed(operatorID, in: workspace, queries) { queries throws(QueryError) in
            try queries.setOperatorCapacity(workspaceID: workspace, operatorID: operatorID, capacity: capacity)
        }
    }

    /// Every change of an operator goes through here, whoever asked (a
    /// frame, the HTTP API): the write, the operator's presence after it,
    /// and, when the operator exists, its presence to every console
    /// following the workspace on every node, and a pass of its workspace.
    private func changed(
        _ operatorID: String, in workspace: String, _ queries: any RoutingQueries,
        _ write: (any RoutingQueries) throws(QueryError) -> Bool
    ) throws(QueryError) -> OperatorPresence? {
        guard try write(queries) else { return nil }
        let presence = try queries.operatorPresence(
            workspaceID: workspace, operatorID: operatorID, defaultCapacity: settings.maxSessionsPerOperator,
            liveSeconds: liveSeconds
        ).first
        if let presence {
            publish(.presence(workspaceID: workspace, operators: [presence], complete: false))
            trigger(workspace: workspace)
        }
        return presence
    }
}
