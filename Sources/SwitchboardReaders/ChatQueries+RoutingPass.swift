import SwitchboardChat
import SwitchboardPostgres
import SwitchboardRouting

/// The routing pass (docs/routing.md): one transaction per workspace,
/// holding that workspace's advisory lock, in which operators gone past
/// their grace give their sessions back to the queue, the queue and the
/// candidates are read, `RoutingPlan` decides, and every decision is
/// applied in one statement with its event in each session's own sequence.
///
/// Why one lock per workspace: an operator's capacity is an invariant over
/// many rows (its count of open sessions). Row locks on the queue (`SKIP
/// LOCKED`) keep two nodes from taking one session, but not from giving one
/// operator its last free place twice, each counting before the other
/// commits. The lock serializes exactly the decisions that compete, and
/// workspaces still route in parallel. Manual assignments take it too
/// (`changeSession`), so that a pass never counts a load that is already stale.
extension ChatQueries {
    /// The key space of the routing locks (`pg_advisory_xact_lock(int, int)`,
    /// which never meets the migration runner's one-key lock).
    static let routingLockClass = "1396855380"

    /// The most queued sessions a pass reads back in order (for positions); the length counts them all.
    public static let queueHeadLimit = 500

    /// One routing pass of `workspaceID`, committed; see above.
    public func routingPass(workspaceID: String, settings: RoutingSettings) throws(QueryError) -> RoutingPassResult {
        try transaction { () throws(QueryError) -> RoutingPassResult in
            try lockRouting(workspaceID)
            let requeued: [SessionChange] = try settings.requeues ? requeue(workspaceID) : []
            let (candidates, now) = try routingCandidates(workspaceID, defaultCapacity: settings.maxSessionsPerOperator)
            let room = candidates.reduce(0) { $0 + max(0, $1.capacity - $1.load) }
            var queue: [QueuedSession] = []
            if room > 0 && settings.mode != .manual { queue = try queuedSessions(workspaceID, limit: room) }
            let plan = RoutingPlan(queue: queue, candidates: candidates, policy: settings.mode.policy, now: now)
            var result = RoutingPassResult(
                workspaceID: workspaceID,
                snapshot: RoutingSnapshot(workspaceID: workspaceID, queue: [], queueLength: 0, availableOperators: 0))
            result.requeued = requeued
            if !plan.assignments.isEmpty {
                (result.assigned, result.firstWaits) = try apply(plan, workspaceID, mode: settings.mode)
            }
            let (head, length) = try queueHead(workspaceID)
            // Counted from the plan: an assignment the apply skipped (taken by hand meanwhile) only leaves room unused.
            let available = plan.candidates.filter(\.hasRoom).count
            result.snapshot = RoutingSnapshot(
                workspaceID: workspaceID, queue: head, queueLength: length, availableOperators: available)
            return result
        }
    }

    /// Waits for the workspace's routing lock, held until the transaction ends.
    func lockRouting(_ workspaceID: String) throws(QueryError) {
        _ = try run(
            "SELECT pg_advisory_xact_lock($1::int, hashtext($2::uuid::text))", [Self.routingLockClass, workspaceID],
            retryable: false)
    }

    /// Operators gone past their grace, or signed off: their open sessions
    /// go back to the queue at their old place (`waiting_since` kept; one
    /// that never waited takes its creation time), each with its event.
    private func requeue(_ workspaceID: String) throws(QueryError) -> [SessionChange] {
        let result = try run(
            """
            WITH gone AS MATERIALIZED (
                SELECT o.id, o.name, o.role,
                       CASE WHEN o.status = 'offline' AND o.status_changed_at IS NOT NULL THEN 'signed_off'
                            ELSE 'disconnected' END AS reason
                  FROM operators o
                 WHERE o.workspace_id = $1::uuid
                   AND (o.connected_until < statement_timestamp()
                        OR (o.status = 'offline' AND o.status_changed_at IS NOT NULL))
            ),
            -- Each gone operator's sessions by key (idx_chat_sessions_assigned): with nobody gone,
            -- nothing is read. (A plain join let the planner walk every assigned session of the
            -- workspace and probe the operators for each: 20 ms a pass at 2,000 assigned.)
            held AS (
                SELECT g.*, h.id AS session_id
                  FROM gone g
                 CROSS JOIN LATERAL (
                     SELECT x.id FROM chat_sessions x
                      WHERE x.workspace_id = $1::uuid AND x.assigned_operator_id = g.id AND x.status = 'assigned'
                        AND x.deleted_at IS NULL) h
            ),
            s AS (
                UPDATE chat_sessions s
                   SET status = 'open', assigned_operator_id = NULL, assigned_operator_name = NULL,
                       waiting_since = coalesce(s.waiting_since, s.first_visitor_message_at, s.created_at),
                       last_seq = s.last_seq + 1, version = s.version + 1
                  FROM held g
                 WHERE s.id = g.session_id AND s.status = 'assigned'
                RETURNING s.*, g.id AS previous_id, g.name AS previous_name, g.role AS previous_role, g.reason,
                          gen_random_uuid() AS event_id
            ),
            c AS (
                INSERT INTO chats (id, session_id, workspace_id, seq, client_msg_id, role, sender_id, sender_name,
                                   kind, content, meta)
                SELECT s.event_id, s.id, s.workspace_id, s.last_seq, 'event:' || s.event_id::text, s.previous_role,
                       s.previous_id, s.previous_name, 'event',
                       coalesce(s.previous_name, s.previous_id)
                           || CASE WHEN s.reason = 'signed_off' THEN ' signed off' ELSE ' went offline' END
                           || '; the conversation waits for the next available operator',
                       jsonb_build_object(
                           'action', 'requeued', 'reason', s.reason,
                           'previous', jsonb_build_object('id', s.previous_id, 'name', s.previous_name))
                  FROM s
                RETURNING *
            )
            SELECT \(RowDecoding.sessionColumns), \(RowDecoding.messageColumns)
              FROM s JOIN c ON c.session_id = s.id \(RowDecoding.lastMessageJoin)
             ORDER BY s.waiting_since, s.id
            """, [workspaceID], retryable: false)
        return try changes(result).map(\.change)
    }

    /// Operators that may take a session now (chosen status online, counted
    /// as connected), with their load, capacity and last assignment; and the
    /// database's clock, in microseconds since the epoch.
    private func routingCandidates(
        _ workspaceID: String, defaultCapacity: Int
    ) throws(QueryError) -> (candidates: [RoutingCandidate], now: Int64) {
        let result = try run(
            """
            SELECT o.id, o.name, o.role, coalesce(o.capacity, $2::int),
                   (SELECT count(*) FROM chat_sessions s
                     WHERE s.workspace_id = o.workspace_id AND s.assigned_operator_id = o.id
                       AND s.status = 'assigned' AND s.deleted_at IS NULL),
                   (extract(epoch FROM o.last_assigned_at) * 1000000)::bigint,
                   (extract(epoch FROM statement_timestamp()) * 1000000)::bigint
              FROM operators o
             WHERE o.workspace_id = $1::uuid AND o.status = 'online' AND o.connected_until > statement_timestamp()
             ORDER BY o.id
            """, [workspaceID, String(defaultCapacity)], retryable: false)
        var candidates: [RoutingCandidate] = []
        var now: Int64 = 0
        for row in 0..<result.rowCount {
            let lastAssignedAt: Int64? = try result.isNull(row, 5) ? nil : RowDecoding.int64(result, row, 5)
            candidates.append(
                RoutingCandidate(
                    operatorID: try RowDecoding.required(result, row, 0), name: result.string(row, 1),
                    role: try RowDecoding.required(result, row, 2), load: Int(try RowDecoding.int64(result, row, 4)),
                    capacity: Int(try RowDecoding.int64(result, row, 3)), lastAssignedAt: lastAssignedAt))
            now = try RowDecoding.int64(result, row, 6)
        }
        return (candidates, now)
    }

    /// The first `limit` queued sessions, oldest first (`idx_chat_sessions_queue`).
    private func queuedSessions(_ workspaceID: String, limit: Int) throws(QueryError) -> [QueuedSession] {
        let result = try run(
            """
            SELECT s.id::text, (extract(epoch FROM s.waiting_since) * 1000000)::bigint
              FROM chat_sessions s WHERE \(Self.queued)
             ORDER BY s.waiting_since, s.id LIMIT $2::int
            """, [workspaceID, String(limit)], retryable: false)
        var queue: [QueuedSession] = []
        for row in 0..<result.rowCount {
            queue.append(
                QueuedSession(
                    id: try RowDecoding.required(result, row, 0), waitingSince: try RowDecoding.int64(result, row, 1)))
        }
        return queue
    }

    /// Every assignment of `plan` in one statement: each session still
    /// queued (one taken by hand meanwhile is left alone) to its operator,
    /// its `assigned` event at its next seq, and each operator's last
    /// assignment stamped. Returns the changes in queue order and the waits
    /// of first assignments.
    private func apply(
        _ plan: RoutingPlan, _ workspaceID: String, mode: RoutingMode
    ) throws(QueryError) -> ([SessionChange], [Double]) {
        let sessions = "{" + plan.assignments.map(\.sessionID).joined(separator: ",") + "}"
        let operators = RowDecoding.textArray(plan.assignments.map(\.operatorID))
        let stamps = "{" + plan.assignments.map { String($0.assignedAt) }.joined(separator: ",") + "}"
        let result = try run(
            """
            WITH picks AS (
                SELECT p.session_id, p.operator_id, p.stamp
                  FROM unnest($2::uuid[], $3::text[], $4::bigint[]) AS p(session_id, operator_id, stamp)
            ),
            s AS (
                UPDATE chat_sessions s
                   SET status = 'assigned', assigned_operator_id = p.operator_id, assigned_operator_name = o.name,
                       last_seq = s.last_seq + 1, version = s.version + 1
                  FROM picks p JOIN operators o ON o.workspace_id = $1::uuid AND o.id = p.operator_id
                 WHERE s.id = p.session_id AND s.workspace_id = $1::uuid AND s.status = 'open'
                   AND s.assigned_operator_id IS NULL AND s.deleted_at IS NULL
                -- first_assigned_at is the trigger's now() only when this is the first assignment.
                RETURNING s.*, o.role AS operator_role, p.stamp, gen_random_uuid() AS event_id,
                          extract(epoch FROM statement_timestamp() - s.waiting_since)::float8 AS waited,
                          s.first_assigned_at = now() AS first_time
            ),
            c AS (
                INSERT INTO chats (id, session_id, workspace_id, seq, client_msg_id, role, sender_id, sender_name,
                                   kind, content, meta)
                SELECT s.event_id, s.id, s.workspace_id, s.last_seq, 'event:' || s.event_id::text, s.operator_role,
                       s.assigned_operator_id, s.assigned_operator_name, 'event',
                       coalesce(s.assigned_operator_name, s.assigned_operator_id) || ' joined the conversation',
                       jsonb_build_object(
                           'action', 'assigned', 'reason', 'routing', 'mode', $5::text,
                           'operator', jsonb_build_object('id', s.assigned_operator_id, 'name', s.assigned_operator_name),
                           'previous', NULL)
                  FROM s
                RETURNING *
            ),
            stamped AS (
                UPDATE operators o SET last_assigned_at = timestamptz 'epoch' + t.stamp * interval '1 microsecond'
                  FROM (SELECT s.assigned_operator_id AS id, max(s.stamp) AS stamp FROM s GROUP BY 1) t
                 WHERE o.workspace_id = $1::uuid AND o.id = t.id
            )
            SELECT \(RowDecoding.sessionColumns), \(RowDecoding.messageColumns), s.waited, s.first_time
              FROM s JOIN c ON c.session_id = s.id \(RowDecoding.lastMessageJoin)
             ORDER BY s.waiting_since, s.id
            """, [workspaceID, sessions, operators, stamps, mode.rawValue], retryable: false)
        let rows = try changes(result)
        var waits: [Double] = []
        let waited = RowDecoding.sessionColumnCount + RowDecoding.messageColumnCount
        for (row, _) in rows where result.bool(row, waited + 1) == true {
            waits.append(max(0, try RowDecoding.double(result, row, waited) ?? 0))
        }
        return (rows.map(\.change), waits)
    }

    /// A session `s` of workspace `$1` waiting in its queue: exactly the
    /// predicate of `idx_chat_sessions_queue` (migration 9), whose order is the queue's.
    static let queued = """
        s.workspace_id = $1::uuid AND s.status = 'open' AND s.assigned_operator_id IS NULL
           AND s.waiting_since IS NOT NULL AND s.deleted_at IS NULL
        """

    /// The queue's head in order (at most `limit`) and its length. Inside a
    /// pass not `retryable`; alone it is.
    func queueHead(
        _ workspaceID: String, limit: Int = queueHeadLimit, retryable: Bool = false
    ) throws(QueryError) -> (head: [String], length: Int) {
        let result = try run(
            """
            SELECT s.id::text, count(*) OVER () FROM chat_sessions s WHERE \(Self.queued)
             ORDER BY s.waiting_since, s.id LIMIT $2::int
            """, [workspaceID, String(limit)], retryable: retryable)
        var head: [String] = []
        for row in 0..<result.rowCount { head.append(try RowDecoding.required(result, row, 0)) }
        let length = result.rowCount == 0 ? 0 : Int(try RowDecoding.int64(result, 0, 1))
        return (head, length)
    }

    /// Rows of a session (`sessionColumns`) and the event it stored
    /// (`messageColumns`), maybe more after: each as a change, with its row.
    private func changes(_ result: PostgresResult) throws(QueryError) -> [(row: Int, change: SessionChange)] {
        var changes: [(Int, SessionChange)] = []
        for row in 0..<result.rowCount {
            let session = try RowDecoding.session(result, row)
            let event = try RowDecoding.message(result, row, at: RowDecoding.sessionColumnCount)
            changes.append((row, SessionChange(session: session, event: event, changed: true)))
        }
        return changes
    }
}
