/// Webhooks' transactional outbox (issue 34, docs/webhooks.md, "The outbox").
///
/// - `webhook_endpoints`: a workspace's receivers (URL, the event types each
///   asked for, its signing secret and, for a rotation's overlap, the
///   previous one until `previous_secret_expires_at`), soft-deleted like
///   sessions; `enabled` false with a `disabled_reason` once it has failed
///   for longer than `webhooks.disable_after_hours` (`failing_since` counts
///   from its first failure after a success).
/// - `webhook_events`: the outbox. One row per event, its `body` the exact
///   JSON every attempt sends, built once in the transaction of the change
///   it reports. Written only when an enabled endpoint of the workspace asks
///   for the type, so a workspace without webhooks stores nothing.
/// - `webhook_deliveries`: one row per event and endpoint that asked for it,
///   `pending` until a 2xx (`succeeded`) or the last retry (`failed`); due
///   when `next_attempt_at` has passed and no lease (`leased_until`) holds it.
///
/// Events are written by the functions of `Migration0013+Outbox.swift`, in
/// the transactions that make the changes: the writer's batch
/// (`Migration0013+Writer.swift`) and every change of a session (a trigger).
///
/// `webhook_events` and `webhook_deliveries` carry no foreign keys: each is
/// written per message on the writer's path, where a key check is an SPI
/// query per row (docs/database.md, "The append function"), and their rows
/// are only ever made by the outbox's functions from rows they have just
/// read in the same transaction. Endpoints are never deleted but softly.
///
/// Row-level security as in migrations 10 and 11, for admins alone (the API
/// is theirs): an admin of the workspace sees and changes its endpoints,
/// reads its events, reads its deliveries and may retry them. Events are
/// written by the outbox's functions, which run as their owner, so a change
/// made through a confined role still writes its event.
enum Migration0013 {
    static let migration = Migration(version: 13, name: "webhooks", sql: sql, down: down)

    private static let sql = tables + "\n" + outboxFunctions + "\n" + sessionTriggers + "\n" + appendFunction

    private static let tables =
        #"""
        CREATE TABLE webhook_endpoints (
            id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
            workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
            url text NOT NULL CHECK (octet_length(url) BETWEEN 1 AND 2048),
            description text CHECK (description IS NULL OR octet_length(description) <= 1024),
            events text[] NOT NULL CHECK (
                cardinality(events) BETWEEN 1 AND 16
                AND events <@ ARRAY['session.created', 'session.updated', 'session.deleted', 'message.created',
                                    'note.created']),
            secret text NOT NULL,
            previous_secret text,
            previous_secret_expires_at timestamptz,
            enabled boolean NOT NULL DEFAULT true,
            disabled_reason text,
            failing_since timestamptz,
            created_at timestamptz NOT NULL DEFAULT now(),
            updated_at timestamptz NOT NULL DEFAULT now(),
            deleted_at timestamptz,
            CHECK ((previous_secret IS NULL) = (previous_secret_expires_at IS NULL))
        );
        -- What the writer's check and every fan-out look up: a workspace's live, enabled endpoints.
        CREATE INDEX idx_webhook_endpoints_live ON webhook_endpoints (workspace_id)
            WHERE enabled AND deleted_at IS NULL;
        -- The API's list.
        CREATE INDEX idx_webhook_endpoints_workspace ON webhook_endpoints (workspace_id, created_at)
            WHERE deleted_at IS NULL;
        CREATE TRIGGER webhook_endpoints_updated_at
            BEFORE UPDATE ON webhook_endpoints
            FOR EACH ROW EXECUTE FUNCTION update_updated_at();

        -- Ids are time-ordered (`evt_` and a ULID's layout), so each insert goes to the
        -- right edge of the primary key, the table's only index; ASCII, so compared bytewise
        -- (COLLATE "C"), whatever the database's collation.
        CREATE TABLE webhook_events (
            id text COLLATE "C" PRIMARY KEY,
            workspace_id uuid NOT NULL,
            type text NOT NULL,
            body text NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now()
        );

        -- Keyed by endpoint first: an endpoint's delivery log, newest first, and its retries are
        -- ranges of the primary key, and every delivery is written with two index entries (this
        -- and the due index). A claim changes only unindexed columns (attempts, leased_until):
        -- with room left in each page it is a HOT update. Ids come from a sequence each backend
        -- takes 64 at a time.
        CREATE TABLE webhook_deliveries (
            endpoint_id uuid NOT NULL,
            id bigint GENERATED ALWAYS AS IDENTITY (CACHE 64),
            workspace_id uuid NOT NULL,
            event_id text COLLATE "C" NOT NULL,
            status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
            attempts integer NOT NULL DEFAULT 0,
            next_attempt_at timestamptz,
            leased_until timestamptz,
            last_attempt_at timestamptz,
            last_status_code integer,
            last_error text,
            last_duration_ms integer,
            last_response_head text,
            created_at timestamptz NOT NULL DEFAULT now(),
            updated_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (endpoint_id, id)
        ) WITH (fillfactor = 80);
        -- Due work: what claims scan, oldest due first; it holds pending deliveries only.
        CREATE INDEX idx_webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';

        ALTER TABLE webhook_endpoints ENABLE ROW LEVEL SECURITY;
        CREATE POLICY webhook_endpoints_admin ON webhook_endpoints FOR ALL
            USING (workspace_id::text = switchboard_setting('switchboard.workspace_id')
                   AND switchboard_setting('switchboard.role') = 'admin')
            WITH CHECK (workspace_id::text = switchboard_setting('switchboard.workspace_id')
                        AND switchboard_setting('switchboard.role') = 'admin');
        ALTER TABLE webhook_events ENABLE ROW LEVEL SECURITY;
        CREATE POLICY webhook_events_admin_select ON webhook_events FOR SELECT
            USING (workspace_id::text = switchboard_setting('switchboard.workspace_id')
                   AND switchboard_setting('switchboard.role') = 'admin');
        ALTER TABLE webhook_deliveries ENABLE ROW LEVEL SECURITY;
        CREATE POLICY webhook_deliveries_admin_select ON webhook_deliveries FOR SELECT
            USING (workspace_id::text = switchboard_setting('switchboard.workspace_id')
                   AND switchboard_setting('switchboard.role') = 'admin');
        CREATE POLICY webhook_deliveries_admin_update ON webhook_deliveries FOR UPDATE
            USING (workspace_id::text = switchboard_setting('switchboard.workspace_id')
                   AND switchboard_setting('switchboard.role') = 'admin')
            WITH CHECK (workspace_id::text = switchboard_setting('switchboard.workspace_id')
                        AND switchboard_setting('switchboard.role') = 'admin');

        """#

    // Down: version 12's writer function; every endpoint, event and delivery is deleted.
    private static let down =
        #"""
        DROP TRIGGER IF EXISTS chat_sessions_webhooks_created ON chat_sessions;
        DROP TRIGGER IF EXISTS chat_sessions_webhooks_updated ON chat_sessions;
        DROP FUNCTION IF EXISTS switchboard_webhook_session_changed();
        DROP FUNCTION IF EXISTS switchboard_webhook_messages(uuid[], uuid[]);
        DROP FUNCTION IF EXISTS switchboard_webhook_emit(uuid, text, text, uuid);
        DROP FUNCTION IF EXISTS switchboard_webhook_session(chat_sessions);
        DROP FUNCTION IF EXISTS switchboard_webhook_message(
            uuid, bigint, uuid, text, text, text, text, text, text, text, jsonb);
        DROP FUNCTION IF EXISTS switchboard_webhook_body(text, text, text, uuid, text);
        DROP FUNCTION IF EXISTS switchboard_webhook_time(timestamptz);
        DROP FUNCTION IF EXISTS switchboard_webhook_id_prefix();
        DROP FUNCTION IF EXISTS switchboard_base32_4(bigint);
        DROP FUNCTION IF EXISTS switchboard_base32(bigint, int);
        DROP TABLE IF EXISTS webhook_deliveries;
        DROP TABLE IF EXISTS webhook_events;
        DROP TABLE IF EXISTS webhook_endpoints;

        """#
        + SQLText.replacing(
            "CREATE FUNCTION", with: "CREATE OR REPLACE FUNCTION", count: 1,
            in: SQLText.function("switchboard_append_messages", in: Migration0012.migration.sql)) + "\n"
}
