import SwitchboardChat
import SwitchboardPostgres
import SwitchboardRouting

/// One operator's open connections on this node, with the name and role
/// its token carries (for its row, should it have none yet).
public struct NodeConnection: Sendable, Equatable {
    public let workspaceID: String
    public let staff: Participant
    public let connections: Int

    public init(workspaceID: String, staff: Participant, connections: Int) {
        self.workspaceID = workspaceID
        self.staff = staff
        self.connections = connections
    }

    public var operatorID: String { staff.id }
}

/// Presence (docs/routing.md): each node's view of the operators connected
/// to it, their `connected_until`, their chosen status and capacity.
extension ChatQueries {
    /// One heartbeat of `node` (or a sync after an operator's first or last
    /// connection here): it is alive (nodes silent for ten heartbeats are
    /// deleted, their connections with them), its connections are
    /// `connections` exactly, their operators (recorded if new) count as
    /// connected for another grace (unless their grace was renewed less
    /// than `settings.renewalSlackSeconds` ago), and so do those whose last
    /// connection here closed since the last beat (from now: a reload moves
    /// nothing).
    /// Returns the workspaces a pass should look at: a queue and someone to
    /// take from it, or (when `settings.requeues`) an operator gone past its
    /// grace who still holds sessions. Every write is a state, so it is
    /// retryable; one statement however many operators (a console storm is
    /// one job, not thousands).
    public func heartbeat(
        node: String, connections: [NodeConnection], settings: RoutingSettings
    ) throws(QueryError) -> [String] {
        _ = try run(
            """
            WITH me AS (
                INSERT INTO gateway_nodes (node_id, heartbeat_at) VALUES ($1, now())
                ON CONFLICT (node_id) DO UPDATE SET heartbeat_at = now()
            )
            DELETE FROM gateway_nodes WHERE node_id <> $1 AND heartbeat_at < now() - $2::int * interval '1 second'
            """, [node, String(10 * settings.heartbeatSeconds)], retryable: true)
        _ = try run(
            """
            WITH mine AS (
                SELECT * FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::int[])
                           AS m(workspace_id, operator_id, name, role, connections)
            ),
            workspace AS (
                INSERT INTO workspaces (id, name)
                SELECT DISTINCT m.workspace_id, 'Workspace ' || m.workspace_id::text FROM mine m
                ON CONFLICT (id) DO NOTHING
            ),
            staff AS (
                INSERT INTO operators (workspace_id, id, name, role, connected_until)
                SELECT m.workspace_id, m.operator_id, nullif(m.name, ''), m.role, now() + $7::int * interval '1 second'
                  FROM mine m
                 -- A grace renewed less than a slack ago (RoutingSettings.renewalSlackSeconds)
                 -- is not even proposed: ON CONFLICT locks each row it meets, writing it,
                 -- whatever its WHERE then decides.
                 WHERE NOT EXISTS (SELECT 1 FROM operators o
                                    WHERE o.workspace_id = m.workspace_id AND o.id = m.operator_id
                                      AND o.connected_until >= now() + ($7::int - $8::float8) * interval '1 second')
                 -- Operators locked in one order, whatever the caller's: two nodes' beats
                 -- sharing operators cannot deadlock, and a pass and a beat rarely do.
                 ORDER BY m.workspace_id, m.operator_id
                ON CONFLICT (workspace_id, id) DO UPDATE
                   SET connected_until = EXCLUDED.connected_until
                 -- Checked again on the row as it is now (another node may have renewed it
                 -- since this statement's snapshot): never moved back, as another node may
                 -- hold the operator longer; a row made by a status choice has none.
                 WHERE coalesce(operators.connected_until, '-infinity')
                       < EXCLUDED.connected_until - $8::float8 * interval '1 second'
            ),
            -- NOT IN over the node's view (never NULL) is one hashed set: a NOT EXISTS
            -- here was planned as a nested loop over the view for each connection row,
            -- 42 ms a beat at 527 operators, growing with their square.
            gone AS (
                DELETE FROM operator_connections c
                 WHERE c.node_id = $1
                   AND (c.workspace_id, c.operator_id) NOT IN (SELECT m.workspace_id, m.operator_id FROM mine m)
                RETURNING c.workspace_id, c.operator_id
            ),
            left_here AS (
                UPDATE operators o
                   SET connected_until = greatest(o.connected_until, now() + $7::int * interval '1 second')
                  FROM gone g
                 WHERE o.workspace_id = g.workspace_id AND o.id = g.operator_id
            )
            INSERT INTO operator_connections (node_id, workspace_id, operator_id, connections)
            SELECT $1, m.workspace_id, m.operator_id, m.connections FROM mine m
             -- An unchanged count is not proposed: neither locked nor written.
             WHERE NOT EXISTS (SELECT 1 FROM operator_connections c
                                WHERE c.node_id = $1 AND c.workspace_id = m.workspace_id
                                  AND c.operator_id = m.operator_id AND c.connections = m.connections)
            ON CONFLICT (node_id, workspace_id, operator_id) DO UPDATE SET connections = EXCLUDED.connections
             WHERE operator_connections.connections <> EXCLUDED.connections
            """,
            [
                node, "{" + connections.map(\.workspaceID).joined(separator: ",") + "}",
                RowDecoding.textArray(connections.map(\.staff.id)),
                RowDecoding.textArray(connections.map { $0.staff.name ?? "" }),
                RowDecoding.textArray(connections.map(\.staff.role)),
                "{" + connections.map { String($0.connections) }.joined(separator: ",") + "}",
                String(settings.offlineGraceSeconds), String(settings.renewalSlackSeconds),
            ], retryable: true)
        guard settings.mode != .manual else { return [] }
        let result = try run(
            """
            -- Each workspace with a queue once, then whether anyone there could take from it:
            -- asked per queued session, a nested loop read all of a workspace's operators for
            -- each of its sessions (500 x 1,000 rows, up to 111 ms a beat, with nobody online).
            WITH queued AS MATERIALIZED (
                SELECT DISTINCT s.workspace_id
                  FROM chat_sessions s
                 WHERE s.status = 'open' AND s.assigned_operator_id IS NULL AND s.waiting_since IS NOT NULL
                   AND s.deleted_at IS NULL
            )
            SELECT q.workspace_id::text
              FROM queued q
             WHERE EXISTS (SELECT 1 FROM operators o
                            WHERE o.workspace_id = q.workspace_id AND o.status = 'online' AND o.connected_until > now())
            UNION
            SELECT DISTINCT o.workspace_id::text
              FROM operators o
             WHERE $1::boolean
               AND (o.connected_until < now() OR (o.status = 'offline' AND o.status_changed_at IS NOT NULL))
               AND EXISTS (SELECT 1 FROM chat_sessions s
                            WHERE s.workspace_id = o.workspace_id AND s.assigned_operator_id = o.id
                              AND s.status = 'assigned' AND s.deleted_at IS NULL)
            """, [settings.requeues ? "true" : "false"], retryable: true)
        var workspaces: [String] = []
        for row in 0..<result.rowCount { workspaces.append(try RowDecoding.required(result, row, 0)) }
        return workspaces
    }

    /// Every operator of the workspace as routing sees it (or only
    /// `operatorID`), by name. `liveSeconds`: a node that has not beaten for
    /// that long holds no connection that counts. Connected: a connection
    /// open on a node that answers, or, once its last one closed (no node
    /// holds it), until its grace is over: a page reload does not flicker
    /// in the team list, while a node that stops answering takes its
    /// operators with it at once.
    public func operatorPresence(
        workspaceID: String, operatorID: String? = nil, defaultCapacity: Int, liveSeconds: Int
    ) throws(QueryError) -> [OperatorPresence] {
        let result = try run(
            """
            SELECT o.id, o.name, o.role, o.status,
                   EXISTS (SELECT 1 FROM operator_connections c JOIN gateway_nodes n ON n.node_id = c.node_id
                            WHERE c.workspace_id = o.workspace_id AND c.operator_id = o.id
                              AND n.heartbeat_at > now() - $3::int * interval '1 second')
                   OR (o.connected_until > now()
                       AND NOT EXISTS (SELECT 1 FROM operator_connections c
                                        WHERE c.workspace_id = o.workspace_id AND c.operator_id = o.id)),
                   (SELECT count(*) FROM chat_sessions s
                     WHERE s.workspace_id = o.workspace_id AND s.assigned_operator_id = o.id
                       AND s.status = 'assigned' AND s.deleted_at IS NULL),
                   coalesce(o.capacity, $2::int), \(RowDecoding.timestamp("o.last_assigned_at")),
                   o.capacity IS NULL, \(RowDecoding.timestamp("o.last_seen_at"))
              FROM operators o
             WHERE o.workspace_id = $1::uuid AND ($4::text IS NULL OR o.id = $4::text)
             ORDER BY lower(coalesce(o.name, o.id)), o.id
            """, [workspaceID, String(defaultCapacity), String(liveSeconds), operatorID], retryable: true)
        var operators: [OperatorPresence] = []
        for row in 0..<result.rowCount {
            let statusText = try RowDecoding.required(result, row, 3)
            guard let status = OperatorStatus(rawValue: statusText) else {
                throw .failed("unexpected operator status \(statusText)")
            }
            operators.append(
                OperatorPresence(
                    id: try RowDecoding.required(result, row, 0), name: result.string(row, 1),
                    role: try RowDecoding.required(result, row, 2), status: status,
                    connected: result.bool(row, 4) == true,
                    activeSessions: Int(try RowDecoding.int64(result, row, 5)),
                    capacity: Int(try RowDecoding.int64(result, row, 6)), lastAssignedAt: result.string(row, 7),
                    capacityIsDefault: result.bool(row, 8) == true, lastSeenAt: result.string(row, 9)))
        }
        return operators
    }

    /// The status `operatorID` chose; false when the workspace has no such operator.
    public func setOperatorStatus(
        workspaceID: String, operatorID: String, status: OperatorStatus
    ) throws(QueryError) -> Bool {
        let result = try run(
            """
            UPDATE operators SET status = $3, status_changed_at = now()
             WHERE workspace_id = $1::uuid AND id = $2
            """, [workspaceID, operatorID, status.rawValue], retryable: true)
        return result.affectedRows == 1
    }

    /// The status `staff` chose for itself (`presence.set`): its row is
    /// made if its `hello` has not been written yet, so that the choice is
    /// never lost to that race. Retryable: it writes a state.
    public func recordOwnStatus(
        workspaceID: String, staff: Participant, status: OperatorStatus
    ) throws(QueryError) {
        _ = try run(
            """
            WITH workspace AS (
                INSERT INTO workspaces (id, name) VALUES ($1::uuid, 'Workspace ' || $1::uuid::text)
                ON CONFLICT (id) DO NOTHING
            )
            INSERT INTO operators (workspace_id, id, name, role, status, status_changed_at)
            VALUES ($1::uuid, $2, $3, $4, $5, now())
            ON CONFLICT (workspace_id, id) DO UPDATE
               SET status = EXCLUDED.status, status_changed_at = now(), name = coalesce(EXCLUDED.name, operators.name)
            """, [workspaceID, staff.id, staff.name, staff.role, status.rawValue], retryable: true)
    }

    /// `operatorID`'s own capacity (nil: the gateway's default); false when no such operator.
    public func setOperatorCapacity(
        workspaceID: String, operatorID: String, capacity: Int?
    ) throws(QueryError) -> Bool {
        let result = try run(
            "UPDATE operators SET capacity = $3::int WHERE workspace_id = $1::uuid AND id = $2",
            [workspaceID, operatorID, capacity.map(String.init)], retryable: true)
        return result.affectedRows == 1
    }

    /// The workspaces (or only `workspaceID`) with an operator available
    /// now, as a pass counts them: online, within its grace, below its
    /// capacity. One statement for a node's heartbeat, bounded by the
    /// operators online (`welcome.operators_available`).
    public func workspacesWithAvailableOperators(
        workspaceID: String? = nil, defaultCapacity: Int
    ) throws(QueryError) -> Set<String> {
        let result = try run(
            """
            SELECT DISTINCT o.workspace_id::text
              FROM operators o
             WHERE o.status = 'online' AND o.connected_until > now()
               AND ($2::uuid IS NULL OR o.workspace_id = $2::uuid)
               AND (SELECT count(*) FROM chat_sessions s
                     WHERE s.workspace_id = o.workspace_id AND s.assigned_operator_id = o.id
                       AND s.status = 'assigned' AND s.deleted_at IS NULL) < coalesce(o.capacity, $1::int)
            """, [String(defaultCapacity), workspaceID], retryable: true)
        var workspaces = Set<String>()
        for row in 0..<result.rowCount { workspaces.insert(try RowDecoding.required(result, row, 0)) }
        return workspaces
    }

    /// The workspace's queued sessions, oldest first (at most `limit`).
    public func queuedSessionIDs(workspaceID: String, limit: Int) throws(QueryError) -> [String] {
        try queueHead(workspaceID, limit: limit, retryable: true).head
    }
}
