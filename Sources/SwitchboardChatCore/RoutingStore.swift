import SwitchboardChat
import SwitchboardReaders
import SwitchboardRouting

/// What routing asks of the database (docs/routing.md): `ChatQueries` on a
/// reader thread in production, an in-memory fake in tests.
package protocol RoutingQueries {
    func routingPass(workspaceID: String, settings: RoutingSettings) throws(QueryError) -> RoutingPassResult
    func heartbeat(
        node: String, connections: [NodeConnection], settings: RoutingSettings
    ) throws(QueryError) -> [String]
    func operatorPresence(
        workspaceID: String, operatorID: String?, defaultCapacity: Int, liveSeconds: Int
    ) throws(QueryError) -> [OperatorPresence]
    func setOperatorStatus(workspaceID: String, operatorID: String, status: OperatorStatus) throws(QueryError) -> Bool
    func recordOwnStatus(workspaceID: String, staff: Participant, status: OperatorStatus) throws(QueryError)
    func setOperatorCapacity(workspaceID: String, operatorID: String, capacity: Int?) throws(QueryError) -> Bool
    func queuedSessionIDs(workspaceID: String, limit: Int) throws(QueryError) -> [String]
    func workspacesWithAvailableOperators(workspaceID: String?, defaultCapacity: Int) throws(QueryError) -> Set<String>
}

extension ChatQueries: RoutingQueries {}

/// Where routing's jobs run: off every event loop (libpq blocks), on the
/// reader pool's threads in production.
package protocol RoutingStore: Sendable {
    /// Runs `job` on a database thread; false at once (nothing runs) when none can take it.
    func run(_ job: @escaping @Sendable (any RoutingQueries) -> Void) -> Bool
}

/// What the chat cores tell routing. Called on loop threads: never blocks.
package protocol RoutingTriggers: AnyObject, Sendable {
    /// An operator's or admin's connection said `hello` in `workspace`.
    func connected(_ staff: Participant, workspace: String)
    /// One of its connections closed.
    func disconnected(_ staff: Participant, workspace: String)
    /// A session changed (closed, released, handed off, reopened, deleted):
    /// capacity may have freed, or the queue grown.
    func changed(_ session: SessionInfo)
    /// `presence.set`: the status `staff` chose; `then` (on a database
    /// thread) gets its presence. False, and nothing runs, when no thread can take it.
    func setOwnStatus(
        _ status: OperatorStatus, of staff: Participant, in workspace: String,
        then finish: @escaping @Sendable (Result<OperatorPresence?, QueryError>) -> Void
    ) -> Bool
    /// `presence.subscribe`: `workspace`'s operators are followed here; `then`
    /// (on a database thread) gets the whole list. False when no thread can take it.
    func watchPresence(
        _ workspace: String, then finish: @escaping @Sendable (Result<[OperatorPresence], QueryError>) -> Void
    ) -> Bool
    func unwatchPresence(_ workspace: String)
    /// Every operator of `workspace` (or only `operatorID`), read on a database thread.
    func presence(
        of workspace: String, operatorID: String?,
        then finish: @escaping @Sendable (Result<[OperatorPresence], QueryError>) -> Void
    ) -> Bool
    /// A visitor here follows a session of `workspace` (`availability`).
    /// `waiting`: the session is queued now (its place may need a read).
    func watchQueue(_ workspace: String, waiting: Bool)
    func unwatchQueue(_ workspace: String)
    /// Whether an operator is available in `workspace`, as this node last heard (no read).
    func operatorsAvailable(_ workspace: String) -> Bool
    /// What the visitors of `workspace` should be told now (no read).
    func availability(in workspace: String, atUnixSeconds now: Int64) -> WorkspaceAvailability
}

/// Told after every routing pass of this node, on a database thread: what
/// a visitor's `availability` (its place in the queue, whether anyone is
/// there) and a team panel are made from. Must not block.
package protocol RoutingObserver: Sendable {
    func routed(_ snapshot: RoutingSnapshot)
}
