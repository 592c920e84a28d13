import SwitchboardPostgres
import SwitchboardStore
import SwitchboardTestSupport
import Testing

/// Migration 13's policies confine a role that is not the owner: an admin
/// of a workspace sees and changes its endpoints, reads its events and
/// deliveries and may retry them; nobody else sees any; no confined role
/// writes an event itself, yet a session it changes still writes its own.
@Suite struct WebhookRowLevelSecurityTests {
    /// What the role sees: endpoint urls, event workspaces, delivery workspaces (each sorted).
    private func visible(_ db: PostgresConnection) throws -> [[String]] {
        try [
            "SELECT url FROM webhook_endpoints ORDER BY 1",
            "SELECT DISTINCT workspace_id::text FROM webhook_events ORDER BY 1",
            "SELECT DISTINCT workspace_id::text FROM webhook_deliveries ORDER BY 1",
        ].map { try db.column($0).compactMap { $0 } }
    }

    @Test func policiesConfineANonOwnerRole() throws {
        let confined = try ConfinedRole(prefix: "sb_wh_")
        defer { confined.drop() }
        let (owner, role) = (confined.owner, confined.name)
        try owner.execute(
            """
            GRANT SELECT, INSERT, UPDATE ON chat_sessions TO \(role);
            GRANT SELECT, INSERT, UPDATE, DELETE ON webhook_endpoints, webhook_events, webhook_deliveries TO \(role);
            GRANT SELECT, INSERT, DELETE ON webhook_backlog TO \(role)
            """)
        let (w1, w2) = (newUUID(), newUUID())
        try owner.query("INSERT INTO workspaces (id, name) VALUES ($1, 'one'), ($2, 'two')", [w1, w2])
        for (workspace, name) in [(w1, "one"), (w2, "two")] {
            try owner.query(
                """
                INSERT INTO webhook_endpoints (workspace_id, url, events, secret)
                VALUES ($1::uuid, 'https://' || $2 || '.example', '{session.created,session.updated}', 'whsec_x')
                """, [workspace, name])
            try owner.query("INSERT INTO chat_sessions (workspace_id, user_id) VALUES ($1::uuid, 'v-1')", [workspace])
        }
        #expect(try owner.count("SELECT count(*) FROM webhook_deliveries") == 2)

        let reader = try confined.connect()
        #expect(try visible(reader) == [[], [], []], "no settings: nothing")
        try reader.actFor(workspace: w1, role: "operator")
        #expect(try visible(reader) == [[], [], []], "the API is the admins'")
        try reader.actFor(workspace: w1, role: "admin")
        #expect(try visible(reader) == [["https://one.example"], [w1], [w1]])

        // Retrying is an update of the workspace's own deliveries only.
        #expect(try reader.query("UPDATE webhook_deliveries SET next_attempt_at = now()").affectedRows == 1)
        #expect(try reader.query("DELETE FROM webhook_deliveries").affectedRows == 0, "no policy deletes")
        // Events are written by the outbox alone.
        let forged = #expect(throws: PostgresError.self) {
            try reader.query(
                "INSERT INTO webhook_events (id, workspace_id, type, body) VALUES ('evt_x', $1::uuid, 'x', '{}')",
                [w1])
        }
        #expect(forged?.sqlState == "42501")
        // Nor the backlog events are made from (migration 21): no policy at all, even for an admin.
        let backlog = #expect(throws: PostgresError.self) {
            try reader.query(
                """
                INSERT INTO webhook_backlog (after_id, last_id, versions, endpoints)
                VALUES (gen_random_uuid(), gen_random_uuid(), '{}', '{}')
                """)
        }
        #expect(backlog?.sqlState == "42501")
        #expect(try reader.query("SELECT count(*) FROM webhook_backlog").int(0, 0) == 0)
        // An endpoint stays in its workspace.
        let moved = #expect(throws: PostgresError.self) {
            try reader.query("UPDATE webhook_endpoints SET workspace_id = $1::uuid", [w2])
        }
        #expect(moved?.sqlState == "42501")

        // A session changed through the confined role writes its event all the same.
        try reader.actFor(workspace: w1, role: "operator")
        #expect(try reader.query("UPDATE chat_sessions SET title = 'Renamed'").affectedRows == 1)
        let renamed = try owner.count(
            "SELECT count(*) FROM webhook_events WHERE type = 'session.updated' AND body LIKE '%Renamed%'")
        #expect(renamed == 1)
        #expect(try owner.count("SELECT count(*) FROM webhook_deliveries WHERE workspace_id = $1::uuid", [w1]) == 2)
    }
}

/// Migration 33: the outbox's owner-rights functions cannot be called by a
/// confined role, which through them wrote events (signed and delivered as
/// the workspace's own) and read endpoints' secrets.
@Suite struct OutboxPrivilegeTests {
    @Test func aConfinedRoleIsRefusedTheOwnerRightsFunctions() throws {
        let confined = try ConfinedRole(prefix: "sb_wh_")
        defer { confined.drop() }
        let (owner, role) = (confined.owner, confined.name)
        try owner.execute(
            "GRANT SELECT, INSERT, UPDATE, DELETE ON webhook_endpoints, webhook_events, webhook_deliveries TO \(role)")
        let workspace = newUUID()
        try owner.query("INSERT INTO workspaces (id, name) VALUES ($1::uuid, 'one')", [workspace])
        try owner.query(
            """
            INSERT INTO webhook_endpoints (workspace_id, url, events, secret)
            VALUES ($1::uuid, 'https://one.example', '{session.deleted}', 'whsec_x')
            """, [workspace])

        let reader = try confined.connect()
        // Even as the workspace's admin: an admin manages endpoints, it does not write events.
        try reader.actFor(workspace: workspace, role: "admin")
        let calls = [
            "SELECT switchboard_webhook_emit('\(workspace)'::uuid, 'session.deleted', '{\"session\":{}}')",
            "SELECT * FROM switchboard_webhook_batch_deliveries('{1}'::bigint[], 1, now(), 1, '{}'::uuid[], '{}'::int[], false)",
            "SELECT switchboard_webhook_batch_events(gen_random_uuid(), gen_random_uuid(), '{}', '{}', now())",
        ]
        for call in calls {
            let refused = #expect(throws: PostgresError.self, "\(call)") { try reader.query(call) }
            #expect(refused?.sqlState == "42501", "\(call)")
        }
        #expect(try owner.count("SELECT count(*) FROM webhook_events") == 0)

        // The owner (the gateway) still writes its test events through it.
        #expect(
            try owner.query("SELECT switchboard_webhook_emit($1::uuid, 'session.deleted', '{}')", [workspace])
                .string(0, 0) != nil)
        #expect(try owner.count("SELECT count(*) FROM webhook_deliveries") == 1)

        // Nor is any other owner-rights function of the schema left to every role.
        let open = try owner.column(
            """
            SELECT p.oid::regprocedure::text FROM pg_proc p
             CROSS JOIN LATERAL aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
             WHERE p.pronamespace = current_schema()::regnamespace AND p.prosecdef
               AND a.grantee = 0 AND a.privilege_type = 'EXECUTE'
            """)
        #expect(open.isEmpty, "executable by PUBLIC: \(open)")
    }
}
