import SwitchboardChat
import SwitchboardPostgres

/// One change of a session, as a command or `PATCH` asks for it; nil fields stay as they are.
public struct SessionChangeRequest: Sendable, Equatable {
    /// What happens to the assignment.
    public enum Assignment: Sendable, Equatable {
        /// To this operator (its name, when nil, is the one the gateway last saw it use).
        case to(id: String, name: String?)
        /// Nobody: the session is open again (a closed one stays closed).
        case nobody
    }

    public var title: String?
    /// `open` reopens a closed session or releases an assigned one; `closed`
    /// closes; `assigned` gives a session nobody holds to the actor.
    public var status: SessionStatus?
    public var assignment: Assignment?

    public init(title: String? = nil, status: SessionStatus? = nil, assignment: Assignment? = nil) {
        self.title = title
        self.status = status
        self.assignment = assignment
    }
}

/// A session after a change, and the system line the change stored.
public struct SessionChange: Sendable, Equatable {
    public let session: SessionInfo
    /// The `event` message (assigned, unassigned, closed, reopened), nil
    /// when the change is none a participant sees again (a title) or when
    /// nothing changed.
    public let event: ChatMessage?
    /// False when the session already was as asked (nothing was written).
    public let changed: Bool

    public init(session: SessionInfo, event: ChatMessage?, changed: Bool) {
        self.session = session
        self.event = event
        self.changed = changed
    }
}

/// Session changes and the operators a workspace has seen.
extension ChatQueries {
    /// Applies `change` by `actor` under the session's row lock and stores its
    /// event in the same transaction (`switchboard_change_session`, migration
    /// 8), an assignment under the workspace's routing lock too; then reads
    /// the session as it stands. Nil: no such live session.
    ///
    /// Not retried after a lost connection: a change that took effect would
    /// store its event twice.
    public func changeSession(
        sessionID: String, _ change: SessionChangeRequest, by actor: Participant
    ) throws(QueryError) -> SessionChange? {
        var operatorID: String?
        var operatorName: String?
        if case .to(let id, let name) = change.assignment {
            operatorID = id
            operatorName = name
        }
        let statement = """
            SELECT changed, event_id::text, event_seq, event_client_msg_id, event_body, event_meta,
                   \(RowDecoding.timestamp("event_created_at"))
              FROM switchboard_change_session($1::uuid, $2, $3, $4::boolean, $5, $6, $7, $8, $9)
            """
        let parameters = [
            sessionID, change.title, change.status?.rawValue, change.assignment == nil ? "false" : "true",
            operatorID, operatorName, actor.role, actor.id, actor.name,
        ]
        let result: PostgresResult
        if operatorID != nil || change.status == .assigned {
            // An assignment waits for the workspace's routing pass, if one runs
            // (ChatQueries+RoutingPass), so that no pass counts a load this one changes.
            result = try transaction { () throws(QueryError) -> PostgresResult in
                let workspace = try run(
                    "SELECT workspace_id::text FROM chat_sessions WHERE id = $1::uuid", [sessionID], retryable: false)
                if let id = workspace.rowCount == 1 ? workspace.string(0, 0) : nil { try lockRouting(id) }
                return try run(statement, parameters, retryable: false)
            }
        } else {
            result = try run(statement, parameters, retryable: false)
        }
        guard result.rowCount == 1, let session = try session(id: sessionID) else { return nil }
        var event: ChatMessage?
        if !result.isNull(0, 1) {
            event = ChatMessage(
                id: try RowDecoding.required(result, 0, 1), sessionID: sessionID,
                seq: try RowDecoding.int64(result, 0, 2), clientMessageID: try RowDecoding.required(result, 0, 3),
                kind: ChatMessage.eventKind, body: try RowDecoding.required(result, 0, 4), sender: actor,
                createdAt: try RowDecoding.required(result, 0, 6), meta: result.string(0, 5))
        }
        return SessionChange(session: session, event: event, changed: result.bool(0, 0) == true)
    }

    /// Records that operators or admins connected (creating their workspaces'
    /// rows if needed, as `createSession` does), with the names their tokens
    /// carry, in one statement. Retryable: repeating it leaves the same rows.
    /// At most one sighting per operator: one statement cannot update a row twice.
    public func recordOperators(_ sightings: [OperatorSighting]) throws(QueryError) {
        guard !sightings.isEmpty else { return }
        var rows: [String] = []
        var parameters: [String?] = []
        rows.reserveCapacity(sightings.count)
        parameters.reserveCapacity(sightings.count * 4)
        for sighting in sightings {
            let first = parameters.count + 1
            rows.append("($\(first)::uuid, $\(first + 1), $\(first + 2), $\(first + 3))")
            parameters += [sighting.workspaceID, sighting.staff.id, sighting.staff.name, sighting.staff.role]
        }
        _ = try run(
            """
            WITH seen (workspace_id, id, name, role) AS (VALUES \(rows.joined(separator: ", "))),
            workspace AS (
                INSERT INTO workspaces (id, name)
                SELECT DISTINCT workspace_id, 'Workspace ' || workspace_id::text FROM seen
                ON CONFLICT (id) DO NOTHING
            )
            INSERT INTO operators (workspace_id, id, name, role)
            SELECT workspace_id, id, name, role FROM seen
             -- Rows locked in the heartbeat's order, whatever the sightings' order: a hello
             -- storm during a beat deadlocked with it (a second's wait, then one rolled back).
             ORDER BY workspace_id, id
            ON CONFLICT (workspace_id, id) DO UPDATE
               SET name = coalesce(EXCLUDED.name, operators.name), role = EXCLUDED.role, last_seen_at = now()
            """, parameters, retryable: true)
    }
}
