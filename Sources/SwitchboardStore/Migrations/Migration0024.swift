/// Claims that read only what they take (docs/webhooks.md, "Delivery";
/// docs/benchmarks.md, "Webhooks").
///
/// A claim reads the due index in order from its oldest entry. In front of
/// the deliveries still due lie the entries of those claimed and recorded
/// since: each update leaves the old version's entry behind, and an index
/// scan may skip such an entry only once no open snapshot can see the
/// version (it then marks it dead; vacuum removes it later). While any
/// other transaction is open (the expander's pass, the search indexer's, a
/// gauge's count, a report), every claim fetches the row of every such
/// entry again. Over a capacity drain (`loadtest bench-webhooks --parts
/// capacity`, 2026-11-27) claims of 87 deliveries read 40 buffers for each
/// (`pg_stat_statements`; 4.5 with nothing else open), and the dispatcher's
/// backends used 232-283 µs of PostgreSQL's CPU per delivery, four fifths of
/// the database's cost of a webhook. With one snapshot held for 6 s, a claim
/// of 128 on the development database read 10,325 buffers of that index
/// against 320.
///
/// - The due index is keyed by `(next_attempt_at, id)`, so that a position
///   in it is a value: `switchboard_webhook_claim` takes one
///   (`p_after_us`, microseconds since the epoch, and `p_after_id`) and
///   starts its scan after it, and returns each claimed delivery's key
///   (`due_us`), so that its caller can start the next claim after the
///   last. `PostgresDeliveryQueue` decides when to start from the front
///   again (NULLs): when a claim found fewer than it asked for, and at
///   least once a second, for what came due behind the position (a
///   delivery of an endpoint that was busy, given back, or written by a
///   transaction that began before the position's claim).
/// - A claim sets `next_attempt_at` to the lease's end, as a hand-over
///   (migration 23) does: a delivery held in flight leaves the range claims
///   read, and is due again by itself when its lease ends unrecorded (the
///   node died, the database was down longer than the lease). The claim's
///   update is no longer HOT (two index entries more, which the record's
///   update, changing `status`, already paid).
///
/// The index is built anew (the table is locked against writes meanwhile:
/// deliveries' rows only, which the writer does not touch since migration
/// 21; pending rows only are indexed).
enum Migration0024 {
    static let migration = Migration(version: 24, name: "webhook_claim_from_a_position", sql: sql, down: down)

    private static let sql =
        #"""
        DROP FUNCTION switchboard_webhook_claim(int, int, uuid[]);
        DROP INDEX idx_webhook_deliveries_due;
        -- Due work: what claims scan, oldest due first, from a position; pending deliveries only.
        CREATE INDEX idx_webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending';

        -- Up to p_limit due deliveries (pending, due, not leased, of an enabled live endpoint not in
        -- p_busy) after the position (p_after_us, p_after_id) in the due index, or from its front
        -- with NULLs, oldest due first, leased for p_lease_seconds and due again at the lease's end;
        -- rows another claim holds are skipped. `attempts` counts this one; the claimer gets the
        -- count before it, and each delivery's position (due_us and its id).
        CREATE FUNCTION switchboard_webhook_claim(
            p_limit int, p_lease_seconds int, p_busy uuid[], p_after_us bigint, p_after_id bigint)
        RETURNS TABLE (id text, event_id text, endpoint_id text, url text, secret text, previous_secret text,
                       body text, attempt int, created_at float8, due_us bigint)
        LANGUAGE plpgsql SET enable_bitmapscan = off AS $$
        #variable_conflict use_column
        DECLARE
            v_after_at timestamptz := CASE WHEN p_after_us IS NULL THEN '-infinity'::timestamptz
                                           ELSE 'epoch'::timestamptz + p_after_us * interval '1 microsecond' END;
            v_after_id bigint := coalesce(p_after_id, 0);
        BEGIN
            RETURN QUERY
            WITH due AS (
                SELECT d.endpoint_id, d.id, d.next_attempt_at FROM webhook_deliveries d
                 WHERE d.status = 'pending' AND d.next_attempt_at <= now()
                   AND (d.next_attempt_at, d.id) > (v_after_at, v_after_id)
                   AND (d.leased_until IS NULL OR d.leased_until < now())
                   AND d.endpoint_id <> ALL (p_busy)
                   AND (SELECT e.enabled AND e.deleted_at IS NULL FROM webhook_endpoints e WHERE e.id = d.endpoint_id)
                 ORDER BY d.next_attempt_at, d.id
                 LIMIT p_limit
                 FOR UPDATE OF d SKIP LOCKED
            )
            UPDATE webhook_deliveries d
               SET leased_until = now() + p_lease_seconds * interval '1 second',
                   next_attempt_at = now() + p_lease_seconds * interval '1 second', attempts = d.attempts + 1,
                   updated_at = now()
              FROM due, webhook_events ev, webhook_endpoints e
             WHERE d.endpoint_id = due.endpoint_id AND d.id = due.id AND ev.id = d.event_id AND e.id = d.endpoint_id
            RETURNING d.id::text, d.event_id, d.endpoint_id::text, e.url, e.secret,
                      CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret END,
                      ev.body, d.attempts - 1, extract(epoch FROM ev.created_at)::float8,
                      ((extract(epoch FROM due.next_attempt_at) * 1000000)::numeric)::bigint;
        END;
        $$;

        """#

    /// Migration 23's index and claim, as they were (released migrations
    /// never change, so this text cannot drift).
    private static let down =
        """
        DROP FUNCTION switchboard_webhook_claim(int, int, uuid[], bigint, bigint);
        DROP INDEX idx_webhook_deliveries_due;
        CREATE INDEX idx_webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';

        """ + Migration0023.claimFunction + "\n"
}
