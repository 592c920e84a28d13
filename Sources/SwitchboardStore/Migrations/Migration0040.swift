/// The outbox's wide values compressed with LZ4 instead of PostgreSQL's
/// default pglz (docs/webhooks.md, "Wide values compressed with LZ4"; issues
/// 34 and 36).
///
/// A value over about 2 kB is compressed before it is stored out of line, in
/// the transaction that writes it. Three such values are written on every
/// busy path of the outbox: the writer's backlog row holds its batch's
/// session versions (`webhook_backlog.versions`: 500 sessions are about
/// 18 kB), the expander's handoff holds its deliveries' ids and events
/// (`webhook_handoffs`: 512 deliveries are about 4 kB of ids and 17 kB of
/// event ids), and an event's body exceeds it when a message is long.
/// `perf` of the expander's backend over 10 s of a capacity drain
/// (2026-12-01): `pglz_compress` 4.0% of its samples, `heap_toast_insert_or_
/// update` 4.7% with its callees. Measured with the statements alone, one
/// backend, CPU from `/proc`: 1,000 handoffs of 512 deliveries cost
/// 1.6-2.0 µs a delivery more with pglz than building their arrays, with LZ4
/// under 0.2; 1,000 backlog rows of 500 sessions' versions 1.0-1.5 ms a row
/// more with pglz, under 0.3 with LZ4 (pglz tries and mostly gives up on
/// random uuids: the values stored were larger than LZ4's).
///
/// Only values written from now on are compressed with LZ4; those stored
/// before keep pglz and read as before: no rewrite. Each `ALTER` holds its
/// table's lock for a catalog update. A PostgreSQL built without LZ4 refuses
/// the method (`feature_not_supported`): the migration then changes nothing
/// and the columns keep pglz (its `NOTICE` shows in `psql`; the gateway's
/// connection discards notices). Down sets the columns back to the server's
/// default.
enum Migration0040 {
    static let migration = Migration(version: 40, name: "outbox_values_compressed_with_lz4", sql: sql, down: down)

    private static let columns = [
        (table: "webhook_backlog", column: "versions"), (table: "webhook_handoffs", column: "delivery_ids"),
        (table: "webhook_handoffs", column: "event_ids"), (table: "webhook_events", column: "body"),
    ]

    private static func alter(to method: String) -> String {
        columns.map { "ALTER TABLE \($0.table) ALTER COLUMN \($0.column) SET COMPRESSION \(method);" }
            .joined(separator: "\n    ")
    }

    private static let sql = """
        DO $$
        BEGIN
            \(alter(to: "lz4"))
        EXCEPTION WHEN feature_not_supported THEN
            RAISE NOTICE 'this PostgreSQL has no LZ4: the outbox''s wide values stay compressed with pglz';
        END;
        $$;
        """

    private static let down = alter(to: "DEFAULT") + "\n"
}
