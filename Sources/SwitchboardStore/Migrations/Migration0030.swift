/// The dispatcher's record of its attempts as a function whose plan is fixed
/// (docs/webhooks.md, "For the dispatcher"; issue 34).
///
/// A record (`PostgresDeliveryQueue.record`) was one statement sent as new
/// text each time: PostgreSQL parsed, analyzed and planned it for every
/// batch of outcomes, about 0.3 ms of a 64-outcome record's 0.9-1.3 ms
/// (`pgbench` against the same statement prepared: 0.59-0.90 ms). Prepared
/// as it stood, its generic plan depends on the table's size when it was
/// made: on a new database's empty `webhook_deliveries` it is a hash join
/// over a sequential scan, which stays while the table grows to hundreds of
/// thousands of rows (a capacity drain's records took 1.3-3.3 ms each).
///
/// - `switchboard_webhook_record(p_ids, p_endpoints, p_succeeded,
///   p_status_codes, p_durations, p_errors, p_heads, p_next_at,
///   p_disable_after_hours)`: the same statement in PL/pgSQL, which keeps
///   its plan between calls, planned with sequential scans, hash and merge
///   joins off: each outcome finds its delivery (and each endpoint its row)
///   by the primary key, whatever the statistics say. Returns the
///   deliveries it wrote.
///
/// Only a function is added: online. Down drops it (gateways of the
/// previous release send the statement themselves).
enum Migration0030 {
    static let migration = Migration(version: 30, name: "webhook_record_function", sql: sql, down: down)

    static let sql = #"""
        -- The outcomes of attempts, one per element: delivery p_ids[i] of endpoint p_endpoints[i],
        -- p_succeeded[i], HTTP status, duration (ms), error, the response's first bytes, the next
        -- attempt (epoch seconds; NULL: none left). Success: succeeded. Failure: due again at the
        -- next attempt or, without one, failed. A late failure never undoes a success. Then each
        -- endpoint of the batch is written once, and only when its state changes: any success ends
        -- its failure; only failures start one, and one failing for longer than
        -- p_disable_after_hours is disabled.
        CREATE FUNCTION switchboard_webhook_record(
            p_ids bigint[], p_endpoints uuid[], p_succeeded boolean[], p_status_codes int[], p_durations int[],
            p_errors text[], p_heads text[], p_next_at float8[], p_disable_after_hours int)
        RETURNS int
        LANGUAGE plpgsql SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
        DECLARE
            v_written int;
        BEGIN
            WITH o AS (
                SELECT * FROM unnest(p_ids, p_endpoints, p_succeeded, p_status_codes, p_durations, p_errors, p_heads,
                                     p_next_at)
                    AS o(id, endpoint_id, succeeded, status_code, duration_ms, error, response_head, next_at)
            ),
            d AS (
                UPDATE webhook_deliveries d
                   SET status = CASE WHEN o.succeeded THEN 'succeeded' WHEN o.next_at IS NULL THEN 'failed'
                                     ELSE 'pending' END,
                       next_attempt_at = CASE WHEN o.succeeded THEN NULL ELSE to_timestamp(o.next_at) END,
                       leased_until = NULL, last_attempt_at = now(), last_status_code = o.status_code,
                       last_duration_ms = o.duration_ms, last_error = o.error, last_response_head = o.response_head,
                       updated_at = now()
                  FROM o
                 WHERE d.endpoint_id = o.endpoint_id AND d.id = o.id AND (d.status <> 'succeeded' OR o.succeeded)
                RETURNING d.endpoint_id, o.succeeded
            ),
            outcome AS (
                SELECT d.endpoint_id, bool_or(d.succeeded) AS succeeded FROM d GROUP BY d.endpoint_id
            ),
            endpoint AS (
                UPDATE webhook_endpoints e
                   SET failing_since = CASE WHEN p.succeeded THEN NULL ELSE coalesce(e.failing_since, now()) END,
                       enabled = CASE WHEN NOT p.succeeded
                                           AND e.failing_since < now() - p_disable_after_hours * interval '1 hour'
                                      THEN false ELSE e.enabled END,
                       disabled_reason = CASE
                           WHEN NOT p.succeeded AND e.enabled
                                AND e.failing_since < now() - p_disable_after_hours * interval '1 hour'
                           THEN 'failing since '
                                || to_char(e.failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
                                || ', longer than webhooks.disable_after_hours (' || p_disable_after_hours::text
                                || ' h)'
                           ELSE e.disabled_reason END
                  FROM outcome p
                 WHERE e.id = p.endpoint_id
                   AND CASE WHEN p.succeeded THEN e.failing_since IS NOT NULL
                            ELSE e.failing_since IS NULL
                                 OR (e.enabled
                                     AND e.failing_since < now() - p_disable_after_hours * interval '1 hour') END
            )
            SELECT count(*) INTO v_written FROM d;
            RETURN v_written;
        END;
        $$;
        """#

    private static let down = """
        DROP FUNCTION switchboard_webhook_record(bigint[], uuid[], boolean[], int[], int[], text[], text[], float8[], int);
        """
}
