import SwitchboardPostgres
import SwitchboardStore
import SwitchboardTestSupport
import Testing

/// Migration 9: when a session starts waiting (the writer's function), when
/// its wait starts again (a visitor's reopen), when it was first assigned
/// (the trigger), and what an upgrade from version 8 queues.
@Suite struct RoutingSchemaTests {
    private func session(_ db: PostgresConnection, workspace: String) throws -> String {
        let id = newUUID()
        try db.query("INSERT INTO workspaces (id, name) VALUES ($1, 'w') ON CONFLICT DO NOTHING", [workspace])
        try db.query(
            "INSERT INTO chat_sessions (id, workspace_id, user_id, title) VALUES ($1, $2, 'v-1', 'Hi')",
            [id, workspace])
        return id
    }

    /// Appends one message; returns the status and the session's waiting_since as the function reports it.
    @discardableResult
    private func append(
        _ db: PostgresConnection, _ session: String, _ id: String, role: String = "visitor"
    ) throws -> [String?] {
        let result = try db.query(
            """
            SELECT status, session_waiting_since::text FROM switchboard_append_messages($1, $2, $3, $4, $5, $6, $7)
             WHERE ord > 0
            """, ["{\(session)}", "{\(id)}", "{\(role)}", "{someone}", "{Ann}", "{text}", "{hello}"])
        return result.rows.first ?? []
    }

    private func waitingSince(_ db: PostgresConnection, _ session: String) throws -> String? {
        try db.column("SELECT waiting_since::text FROM chat_sessions WHERE id = $1", [session]).first ?? nil
    }

    @Test func aVisitorsFirstMessageOnAnOpenUnassignedSessionStartsItsWait() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        let workspace = newUUID()
        let waiting = try session(db, workspace: workspace)

        let first = try append(db, waiting, "m1")
        #expect(first[0] == "stored" && first[1] != nil, "the state it returns carries the wait")
        #expect(try waitingSince(db, waiting) == first[1])
        try append(db, waiting, "m2")
        #expect(try waitingSince(db, waiting) == first[1], "a later message does not restart it")

        let answered = try session(db, workspace: workspace)
        #expect(try append(db, answered, "o1", role: "operator")[1] == nil, "an operator's message is no wait")
        try db.query(
            "UPDATE chat_sessions SET status = 'assigned', assigned_operator_id = 'op-1' WHERE id = $1", [answered])
        try append(db, answered, "v1")
        #expect(try waitingSince(db, answered) == nil, "an assigned session does not wait")
        #expect(
            try db.column("SELECT id::text FROM chat_sessions WHERE waiting_since IS NOT NULL") == [waiting])
    }

    @Test func aVisitorsReopenStartsANewWaitAndAssignmentKeepsTheOld() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        let id = try session(db, workspace: newUUID())
        let first = try append(db, id, "m1")[1]
        try db.query(
            "UPDATE chat_sessions SET status = 'assigned', assigned_operator_id = 'op-1' WHERE id = $1", [id])
        #expect(try waitingSince(db, id) == first, "kept through an assignment, for a requeue")
        try db.query("UPDATE chat_sessions SET status = 'closed' WHERE id = $1", [id])

        let reopened = try append(db, id, "m2")[1]
        #expect(reopened != nil && reopened != first)
        #expect(
            try db.count(
                "SELECT count(*) FROM chat_sessions WHERE id = $1 AND status = 'open' AND waiting_since > $2::timestamptz",
                [id, first]) == 1)
    }

    @Test func theFirstAssignmentIsStampedOnceWhateverAssigns() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        let id = try session(db, workspace: newUUID())
        let stamp = "SELECT first_assigned_at::text FROM chat_sessions WHERE id = $1"
        try append(db, id, "m1")
        #expect(try db.column(stamp, [id]).first == .some(nil))

        try db.query("UPDATE chat_sessions SET assigned_operator_id = 'op-1', status = 'assigned' WHERE id = $1", [id])
        let first = try db.column(stamp, [id]).first ?? nil
        #expect(first != nil)
        try db.query("UPDATE chat_sessions SET assigned_operator_id = NULL, status = 'open' WHERE id = $1", [id])
        try db.query("UPDATE chat_sessions SET assigned_operator_id = 'op-2', status = 'assigned' WHERE id = $1", [id])
        #expect(try db.column(stamp, [id]).first == first)
    }

    @Test func upgradingQueuesWhoWaitsAndDowngradingRestoresVersionEight() throws {
        let database = try TestDatabase()
        defer { database.drop() }
        let db = try database.connect()
        try MigrationRunner(connection: db, migrations: migrations(upTo: 8)).up()
        let workspace = newUUID()
        let waiting = try session(db, workspace: workspace)
        let assigned = try session(db, workspace: workspace)
        let silent = try session(db, workspace: workspace)
        for id in [waiting, assigned] {
            try db.query(
                "SELECT status FROM switchboard_append_messages($1, $2, $3, $4, $5, $6, $7)",
                ["{\(id)}", "{m1}", "{visitor}", "{v-1}", "{Vera}", "{text}", "{hi}"])
        }
        try db.query(
            "SELECT changed FROM switchboard_change_session($1, NULL, NULL, true, 'op-1', 'Olga', 'operator', 'op-1', 'Olga')",
            [assigned])
        _ = silent

        #expect(try MigrationRunner(connection: db).up().map(\.version) == Array(9...latest))
        #expect(
            try db.column("SELECT id::text FROM chat_sessions WHERE waiting_since IS NOT NULL") == [waiting],
            "an open unassigned session with a visitor's message is queued; a silent one is not")
        #expect(
            try db.column("SELECT id::text FROM chat_sessions WHERE first_assigned_at IS NOT NULL") == [assigned])

        #expect(try MigrationRunner(connection: db).migrateDown(to: 8).map(\.version) == Array((9...latest).reversed()))
        #expect(try !db.exists("gateway_nodes") && !db.exists("operator_connections"))
        let stored = try db.query(
            "SELECT status FROM switchboard_append_messages($1, $2, $3, $4, $5, $6, $7)",
            ["{\(waiting)}", "{m2}", "{visitor}", "{v-1}", "{Vera}", "{text}", "{again}"])
        #expect(stored.rows == [["stored"]])
        #expect(try MigrationRunner(connection: db).up().map(\.version) == Array(9...latest))
        #expect(try SchemaVerifier(connection: db).verify() == [])
    }
}
