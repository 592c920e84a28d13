/// What the expander hands its dispatcher keeps each endpoint to its share
/// (docs/webhooks.md, "Handed over, not claimed"; issue 34).
///
/// Until now a pass handed over its first deliveries up to the dispatcher's
/// free room, whatever their endpoints. Claims skip an endpoint once it
/// holds its share (`webhooks.hold_rounds` rounds of its concurrent
/// requests), so that a slow endpoint cannot take the room of the others;
/// hand-overs did not, and a slow endpoint's deliveries filled all of it.
/// Another endpoint's events were then written due and could not be
/// claimed either (no room) until the slow endpoint's waiting deliveries
/// were given back, at the end of a request timeout:
/// `WebhookDeliveryEndToEndTests.aSlowEndpointDoesNotHoldBackAnotherEndpointsEvents`
/// had 78 of 300 events at the quick endpoint after 5 s.
///
/// - `switchboard_webhook_expand(p_budget, p_handoff, p_lease_seconds,
///   p_per_endpoint, p_held_endpoints, p_held_counts)` and
///   `switchboard_webhook_batch_deliveries(..., p_per_endpoint,
///   p_held_endpoints, p_held_counts)`: as migration 28's, except that of
///   each endpoint no more deliveries are handed over than `p_per_endpoint`
///   less what the caller holds of it (`p_held_counts[i]` of
///   `p_held_endpoints[i]`); the others are written due, and claims take them
///   once the endpoint has room (or another node's dispatcher does).
///   `p_handoff` still bounds them all.
///
/// Only functions change: online. The old signatures are dropped (a new
/// signature would be an overload beside them). Down restores migration 28's.
enum Migration0029 {
    static let migration = Migration(version: 29, name: "webhook_handoff_per_endpoint_share", sql: sql, down: down)

    private static let sql =
        """
        DROP FUNCTION switchboard_webhook_expand(int, int, int);
        DROP FUNCTION switchboard_webhook_batch_deliveries(bigint[], int, timestamptz);
        \(batchFunction)
        \(expandFunction)
        """

    /// Migration 28's, with the share and what each endpoint holds as
    /// parameters, and each endpoint's deliveries ranked before the count
    /// of what is handed over.
    static let batchFunction: String = {
        let sql = SQLText.replacing(
            "    p_ids bigint[], p_handoff int, p_lease_end timestamptz)\n",
            with:
                "    p_ids bigint[], p_handoff int, p_lease_end timestamptz, p_per_endpoint int, p_held_endpoints uuid[],\n"
                + "    p_held_counts int[])\n",
            count: 1, in: Migration0028.batchFunction)
        return SQLText.replacing(
            """
                -- Each delivery's id taken here, so that what is handed over is read from this CTE: no
                -- join of what the inserts return to what they were given (CTE scans, whose sizes the
                -- planner cannot know: it joined them by nested loops, quadratic in the pass's size).
                targets AS MATERIALIZED (
                    -- An endpoint disabled since the batch gets its deliveries, held (due) until it is
                    -- enabled again, as claims skip it: none is handed over.
                    SELECT nextval('webhook_deliveries_id_seq') AS delivery_id, e.event_id, e.workspace_id, e.body,
                           e.created_at, h.id AS endpoint_id, h.url, h.secret, h.previous_secret,
                           h.enabled AND count(*) FILTER (WHERE h.enabled)
                                             OVER (ORDER BY e.event_id, h.id) <= p_handoff AS handed
                      FROM events e
                      JOIN hooks h ON h.id = ANY (e.batch_endpoints) AND h.workspace_id = e.workspace_id
                                  AND e.type = ANY (h.events)
                ),

            """,
            with: """
                    -- Which deliveries each endpoint has room for: its share less what it holds already, in
                    -- event order. An endpoint disabled since the batch gets its deliveries, held (due) until
                    -- it is enabled again, as claims skip it: none is handed over.
                    pairs AS MATERIALIZED (
                        SELECT e.event_id, e.workspace_id, e.body, e.created_at, h.id AS endpoint_id, h.url, h.secret,
                               h.previous_secret,
                               h.enabled AND row_number() OVER (PARTITION BY h.id ORDER BY e.event_id)
                                             <= p_per_endpoint - coalesce(held.count, 0) AS fits
                          FROM events e
                          JOIN hooks h ON h.id = ANY (e.batch_endpoints) AND h.workspace_id = e.workspace_id
                                      AND e.type = ANY (h.events)
                          LEFT JOIN unnest(p_held_endpoints, p_held_counts) AS held(endpoint_id, count)
                                 ON held.endpoint_id = h.id
                    ),
                    -- Each delivery's id taken here, so that what is handed over is read from this CTE: no
                    -- join of what the inserts return to what they were given (CTE scans, whose sizes the
                    -- planner cannot know: it joined them by nested loops, quadratic in the pass's size).
                    targets AS MATERIALIZED (
                        SELECT nextval('webhook_deliveries_id_seq') AS delivery_id, p.event_id, p.workspace_id, p.body,
                               p.created_at, p.endpoint_id, p.url, p.secret, p.previous_secret,
                               p.fits AND count(*) FILTER (WHERE p.fits)
                                              OVER (ORDER BY p.event_id, p.endpoint_id) <= p_handoff AS handed
                          FROM pairs p
                    ),

                """,
            count: 1, in: sql)
    }()

    /// Migration 28's, passing the share and what each endpoint holds on.
    static let expandFunction: String = {
        let sql = SQLText.replacing(
            "CREATE OR REPLACE FUNCTION switchboard_webhook_expand(p_budget int, p_handoff int, p_lease_seconds int)\n",
            with: "CREATE OR REPLACE FUNCTION switchboard_webhook_expand(\n"
                + "    p_budget int, p_handoff int, p_lease_seconds int, p_per_endpoint int, p_held_endpoints uuid[],\n"
                + "    p_held_counts int[])\n",
            count: 1, in: Migration0028.expandFunction)
        return SQLText.replacing(
            "                     v_ids, greatest(p_handoff, 0), now() + p_lease_seconds * interval '1 second') LOOP\n",
            with: "                     v_ids, greatest(p_handoff, 0), now() + p_lease_seconds * interval '1 second',\n"
                + "                     p_per_endpoint, p_held_endpoints, p_held_counts) LOOP\n",
            count: 1, in: sql)
    }()

    private static let down =
        """
        DROP FUNCTION switchboard_webhook_expand(int, int, int, int, uuid[], int[]);
        DROP FUNCTION switchboard_webhook_batch_deliveries(bigint[], int, timestamptz, int, uuid[], int[]);
        \(Migration0028.batchFunction)
        \(Migration0028.expandFunction)
        """
}
