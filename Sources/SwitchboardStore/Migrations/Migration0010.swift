/// Business hours (issue 32, docs/routing.md): one schedule per workspace,
/// as `PUT /api/v1/business-hours` stores it. No row: always open.
///
/// `weekly` is kept as the API's JSON (`{"mon":[["09:00","17:30"]],...}`),
/// checked by the gateway before it is written; the database bounds its
/// size. Confined like `operators`: staff of the workspace only.
enum Migration0010 {
    static let migration = Migration(
        version: 10, name: "business_hours",
        sql: #"""
            CREATE TABLE business_hours (
                workspace_id uuid PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
                time_zone text NOT NULL CHECK (octet_length(time_zone) BETWEEN 1 AND 64),
                weekly jsonb NOT NULL CHECK (jsonb_typeof(weekly) = 'object' AND octet_length(weekly::text) <= 16384),
                closed_dates date[] NOT NULL DEFAULT '{}' CHECK (cardinality(closed_dates) <= 500),
                updated_at timestamptz NOT NULL DEFAULT now()
            );
            ALTER TABLE business_hours ENABLE ROW LEVEL SECURITY;
            CREATE POLICY business_hours_staff ON business_hours FOR ALL
                USING (workspace_id::text = switchboard_setting('switchboard.workspace_id')
                       AND switchboard_setting('switchboard.role') IN ('operator', 'admin'))
                WITH CHECK (workspace_id::text = switchboard_setting('switchboard.workspace_id')
                            AND switchboard_setting('switchboard.role') IN ('operator', 'admin'));

            """#,
        down: "DROP TABLE IF EXISTS business_hours;\n")
}
