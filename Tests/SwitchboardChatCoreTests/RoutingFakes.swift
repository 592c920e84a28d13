import Foundation
import SwitchboardChat
import SwitchboardReaders
import SwitchboardRouting

@testable import SwitchboardChatCore

/// Routing's database in memory: what each call was asked, and scripted
/// answers. Used on the test's thread only (hence `@unchecked Sendable`).
final class FakeRoutingQueries: RoutingQueries, @unchecked Sendable {
    /// Workspaces passed, in order.
    private(set) var passes: [String] = []
    /// What the next passes return (else nothing changed), per workspace.
    var scripted: [String: [RoutingPassResult]] = [:]
    var heartbeats: [(node: String, connections: [NodeConnection])] = []
    /// Each heartbeat's connection counts by operator id.
    var counts: [[String: Int]] {
        heartbeats.map { Dictionary(uniqueKeysWithValues: $0.connections.map { ($0.operatorID, $0.connections) }) }
    }
    /// What `heartbeat` answers: workspaces with work.
    var workspacesWithWork: [String] = []
    var failPasses = false

    func routingPass(workspaceID: String, settings: RoutingSettings) throws(QueryError) -> RoutingPassResult {
        passes.append(workspaceID)
        if failPasses { throw .unavailable("the test said so") }
        if var next = scripted[workspaceID], !next.isEmpty {
            let result = next.removeFirst()
            scripted[workspaceID] = next
            return result
        }
        return RoutingPassResult(
            workspaceID: workspaceID,
            snapshot: RoutingSnapshot(workspaceID: workspaceID, queue: [], queueLength: 0, availableOperators: 0))
    }

    func heartbeat(
        node: String, connections: [NodeConnection], settings: RoutingSettings
    ) throws(QueryError)
        -> [String]
    {
        heartbeats.append((node, connections.sorted { $0.operatorID < $1.operatorID }))
        return workspacesWithWork
    }

    func operatorPresence(
        workspaceID: String, operatorID: String?, defaultCapacity: Int, liveSeconds: Int
    ) throws(QueryError) -> [OperatorPresence] {
        presenceReads += 1
        if let team { return team.filter { operatorID == nil || $0.id == operatorID } }
        return [
            OperatorPresence(
                id: operatorID ?? "op-ken", name: "Ken", role: "operator", status: .online, connected: true,
                activeSessions: 1, capacity: defaultCapacity, lastAssignedAt: nil)
        ]
    }

    /// What `operatorPresence` answers when set (else one operator, Ken).
    var team: [OperatorPresence]?
    private(set) var presenceReads = 0
    /// What `queuedSessionIDs` answers.
    var queue = ["s1", "s2"]
    /// What `workspacesWithAvailableOperators` answers.
    var availableWorkspaces: Set<String> = []

    func workspacesWithAvailableOperators(
        workspaceID: String?, defaultCapacity: Int
    ) throws(QueryError) -> Set<String> {
        availableWorkspaces.filter { workspaceID == nil || $0 == workspaceID }
    }

    private(set) var statuses: [String: OperatorStatus] = [:]

    func setOperatorStatus(
        workspaceID: String, operatorID: String, status: OperatorStatus
    ) throws(QueryError)
        -> Bool
    {
        statuses[operatorID] = status
        return operatorID != "op-nobody"
    }

    func recordOwnStatus(workspaceID: String, staff: Participant, status: OperatorStatus) throws(QueryError) {
        statuses[staff.id] = status
    }

    func setOperatorCapacity(workspaceID: String, operatorID: String, capacity: Int?) throws(QueryError) -> Bool {
        operatorID != "op-nobody"
    }

    func queuedSessionIDs(workspaceID: String, limit: Int) throws(QueryError) -> [String] { queue }
}

/// Routing's jobs held until the test runs them (`runAll`), or refused.
final class ManualRoutingStore: RoutingStore, @unchecked Sendable {
    let queries = FakeRoutingQueries()
    private var jobs: [@Sendable (any RoutingQueries) -> Void] = []
    var refuse = false

    func run(_ job: @escaping @Sendable (any RoutingQueries) -> Void) -> Bool {
        guard !refuse else { return false }
        jobs.append(job)
        return true
    }

    var waiting: Int { jobs.count }

    /// Runs the jobs queued, and those they queue, until none is left; returns how many ran.
    @discardableResult
    func runAll() -> Int {
        var ran = 0
        while !jobs.isEmpty {
            let job = jobs.removeFirst()
            job(queries)
            ran += 1
        }
        return ran
    }
}
