/// The layout of the system we replace, created only where it does not exist
/// yet, so a blank database and a legacy one continue from the same point.
enum Migration0001 {
    static let migration = Migration(
        version: 1, name: "base_workspaces_and_chats",
        sql: #"""
            CREATE TABLE IF NOT EXISTS workspaces (
                id uuid PRIMARY KEY,
                name text NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now()
            );

            CREATE TABLE IF NOT EXISTS chats (
                id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
                workspace_id uuid NOT NULL REFERENCES workspaces (id),
                user_id uuid,
                role text NOT NULL,
                content text NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now()
            );

            -- Legacy tables may lack the default; new rows get ids from the database.
            ALTER TABLE chats ALTER COLUMN id SET DEFAULT gen_random_uuid();

            CREATE OR REPLACE FUNCTION update_updated_at()
            RETURNS trigger AS $$
            BEGIN
                NEW.updated_at = now();
                RETURN NEW;
            END;
            $$ LANGUAGE plpgsql;
            """#)
}
