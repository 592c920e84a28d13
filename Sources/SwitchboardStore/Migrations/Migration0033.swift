/// The outbox's owner-rights functions are the owner's to call (issue 34;
/// docs/database.md, "Row-level security").
///
/// Four functions run as their owner (`SECURITY DEFINER`) so that an event
/// is written whoever made the change: `switchboard_webhook_emit` (test
/// events, retries' wake-up), the session trigger's function, the expander's
/// `switchboard_webhook_batch_deliveries` and migration 21's
/// `switchboard_webhook_batch_events`. PostgreSQL lets every role execute a
/// new function, and none of the four had that taken back, so a role that
/// row-level security confines could call them with the owner's rights:
///
/// - `switchboard_webhook_emit(workspace, type, data)` wrote any event, of any
///   type and body, into any workspace, and the dispatcher delivered it signed
///   with that workspace's secret: a forged webhook the receiver's check
///   accepts;
/// - `switchboard_webhook_batch_deliveries(ids, ...)` took backlog rows (its
///   ids are a sequence's) and returned their endpoints' URLs and secrets.
///
/// `EXECUTE` is revoked from `PUBLIC` on all four. The owner keeps it (the
/// gateway connects as the owner), and functions running as the owner (the
/// session trigger, the expander's pass called by the gateway) call them as
/// before; a trigger's function needs no `EXECUTE` of the role whose
/// statement fires it. `OutboxPrivilegeTests` checks that a confined role is
/// refused each and that no owner-rights function of the schema is left
/// executable by `PUBLIC`.
///
/// Privileges only: online. Down grants them back.
enum Migration0033 {
    static let migration = Migration(version: 33, name: "outbox_definer_functions_owner_only", sql: sql, down: down)

    /// The owner-rights functions, by signature.
    static let definerFunctions = [
        "switchboard_webhook_emit(uuid, text, text, uuid)",
        "switchboard_webhook_session_changed()",
        "switchboard_webhook_batch_events(uuid, uuid, jsonb, uuid[], timestamptz)",
        "switchboard_webhook_batch_deliveries(bigint[], int, timestamptz, int, uuid[], int[])",
    ]

    private static let sql = SQLText.each(definerFunctions) { "REVOKE EXECUTE ON FUNCTION \($0) FROM PUBLIC;" }

    private static let down = SQLText.each(definerFunctions) { "GRANT EXECUTE ON FUNCTION \($0) TO PUBLIC;" }
}
