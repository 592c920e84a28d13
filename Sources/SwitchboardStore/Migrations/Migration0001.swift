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
            """#,
        // Down: workspaces and chats are the legacy layout this migration adopts;
        // on a legacy database they hold the data that predates us, and nothing
        // records whether this migration or the legacy system created them. So
        // down drops them only while both are empty (nothing is lost and a blank
        // database returns to blank) and otherwise keeps them: that state is the
        // legacy layout, a valid "version 0" that migration 1 adopts again. The
        // trigger function goes only when no trigger uses it (the guide expects
        // a workspace schema that may share it). The chats.id default stays:
        // harmless, and the legacy writer always supplied ids.
        down: #"""
            DO $$
            BEGIN
                IF NOT EXISTS (SELECT 1 FROM chats) AND NOT EXISTS (SELECT 1 FROM workspaces) THEN
                    DROP TABLE chats;
                    DROP TABLE workspaces;
                ELSE
                    RAISE NOTICE 'keeping workspaces and chats: they hold data';
                END IF;
                IF to_regprocedure('update_updated_at()') IS NOT NULL
                   AND NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgfoid = 'update_updated_at()'::regprocedure) THEN
                    DROP FUNCTION update_updated_at();
                END IF;
            END $$;
            """#)
}
