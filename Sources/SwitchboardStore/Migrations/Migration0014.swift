/// What the webhook outbox costs a small batch (docs/writer.md, "Webhook
/// outbox"): two changes to migration 13's functions, measured as backend
/// CPU per message of 20-message batches with an endpoint subscribed, 85 µs
/// to 64 µs (against 43 without webhooks).
///
/// - `switchboard_webhook_id_prefix` in PL/pgSQL, whose expressions are
///   planned once per connection: as SQL functions (it and
///   `switchboard_base32`, which goes) they were parsed and planned anew at
///   every call, once per batch and once per session event.
/// - `switchboard_webhook_messages` runs as its caller, the writer's
///   function, which is the gateway's (the owner): a role confined by
///   row-level security does not store messages. As SECURITY DEFINER with a
///   fixed search path, every call changed and restored the search path. The
///   session trigger and `switchboard_webhook_emit` stay SECURITY DEFINER:
///   confined roles do change sessions, and their events must still be
///   written.
enum Migration0014 {
    static let migration = Migration(version: 14, name: "webhook_outbox_cost", sql: sql, down: down)

    private static let sql =
        #"""
        -- `evt_` and the first 22 of a ULID's 26 characters: 48 bits of Unix milliseconds, then
        -- 60 random bits (of a version 4 UUID, skipping its fixed version and variant digits), as
        -- migration 13's.
        CREATE OR REPLACE FUNCTION switchboard_webhook_id_prefix() RETURNS text
        LANGUAGE plpgsql VOLATILE AS $$
        DECLARE
            v_alphabet constant text := '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
            v_time bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
            v_uuid text := replace(gen_random_uuid()::text, '-', '');
            v_random bigint := ('x' || substr(v_uuid, 1, 12) || substr(v_uuid, 18, 3))::bit(60)::bigint;
            v_id text := 'evt_';
        BEGIN
            FOR i IN REVERSE 9..0 LOOP
                v_id := v_id || substr(v_alphabet, ((v_time >> (5 * i)) & 31)::int + 1, 1);
            END LOOP;
            FOR i IN REVERSE 11..0 LOOP
                v_id := v_id || substr(v_alphabet, ((v_random >> (5 * i)) & 31)::int + 1, 1);
            END LOOP;
            RETURN v_id;
        END;
        $$;
        DROP FUNCTION switchboard_base32(bigint, int);

        ALTER FUNCTION switchboard_webhook_messages(uuid[], uuid[]) SECURITY INVOKER RESET search_path;

        """#

    // Down: migration 13's functions as it made them.
    private static let down =
        SQLText.function("switchboard_base32", in: Migration0013.outboxFunctions) + "\n"
        + SQLText.replacing(
            "CREATE FUNCTION", with: "CREATE OR REPLACE FUNCTION", count: 1,
            in: SQLText.function("switchboard_webhook_id_prefix", in: Migration0013.outboxFunctions)) + "\n"
            + #"""
            ALTER FUNCTION switchboard_webhook_messages(uuid[], uuid[]) SECURITY DEFINER SET search_path FROM CURRENT;

            """#
}
