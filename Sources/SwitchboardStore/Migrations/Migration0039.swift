/// A delivery handed over at birth is written once, by the record of its
/// outcome (docs/webhooks.md, "Handed over, written once"; issue 34).
///
/// Since migration 23 the expander wrote every delivery it handed to its
/// dispatcher as a row, pending and leased, and the record of the attempt
/// then updated that row to `succeeded`: an update that can never be HOT
/// (the due index holds `status` and `next_attempt_at`), so each delivery
/// paid a second heap tuple, a second primary-key entry and a dead tuple for
/// vacuum. Measured with the statements alone on one backend (2026-12-01,
/// 200,000 deliveries, CPU from `/proc`): birth insert + record 2.18 + 4.25 s
/// and 2.54 + 4.69 s (32-36 µs a delivery), writing each row once in its final
/// state 2.34 and 2.66 s (12-13 µs).
///
/// Now what a pass hands over is one `webhook_handoffs` row per endpoint: its
/// deliveries' ids (drawn from the deliveries' own sequence, as before) and
/// events, leased to the caller as the rows were. The delivery's row is
/// written once, whichever comes first:
/// - `switchboard_webhook_record` (with `p_handoffs` and `p_event_ids`
///   now): the attempt's outcome, in its final state (succeeded;
///   pending until the next attempt; failed);
/// - `switchboard_webhook_give_back(...)`: due at once, unattempted, while
///   the lease lasts (an endpoint too slow to start it, a dispatcher
///   stopping);
/// - `switchboard_webhook_recover_handoffs(p_limit)`: due at once, its
///   attempt counted, for the deliveries of a handoff whose lease has ended
///   (its holder died), as the leased row came due at its lease's end
///   before.
/// Each decrements its handoff's `outstanding` by the rows it wrote and
/// deletes the handoff at zero. Each locks the handoffs it settles (in id
/// order) before it writes their deliveries, and the recovery skips locked
/// ones, so no two write one delivery at once: the record and the giving
/// back write only deliveries with no row yet, found by a probe of the key
/// (`ON CONFLICT` cost 5.7 µs more a row), so a record repeated after a lost
/// connection, or one that comes after the recovery, writes nothing twice.
///
/// Events are written by the pass as before: an event is never lost with
/// its handoff, and retries and the recovery send its stored body.
///
/// Online: a new table and functions; the expansion functions are replaced
/// with one more returned column (`handoff_id`) and the record with two more
/// parameters, so they are dropped and made again with their privileges
/// (migration 33) and settings (migrations 34 and 35). A gateway of the
/// previous release fails to record until it is replaced: what it holds
/// comes due when its lease ends and is sent again (at least once holds).
/// Down writes every waiting handoff's deliveries due, then restores
/// migrations 30's, 32's and 36's functions.
enum Migration0039 {
    static let migration = Migration(version: 39, name: "webhook_handoffs_written_once", sql: sql, down: down)

    static let batchSignature = "switchboard_webhook_batch_deliveries(bigint[], int, timestamptz, int, uuid[], int[])"
    static let expandSignature = "switchboard_webhook_expand(int, int, int, int, uuid[], int[])"
    static let recordSignature =
        "switchboard_webhook_record(bigint[], uuid[], boolean[], int[], int[], text[], text[], float8[], int, bigint[], text[])"

    private static let sql = """
        -- A pass's deliveries handed over to one endpoint, leased to the dispatcher that got
        -- them; each of its deliveries is written as a row once, and the handoff deleted with the
        -- last. Updated in place (`outstanding`, unindexed) as outcomes are recorded: HOT, with
        -- the page's room.
        CREATE TABLE webhook_handoffs (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            endpoint_id uuid NOT NULL,
            workspace_id uuid NOT NULL,
            leased_until timestamptz NOT NULL,
            outstanding integer NOT NULL CHECK (outstanding >= 0),
            delivery_ids bigint[] NOT NULL,
            event_ids text[] COLLATE "C" NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now()
        ) WITH (fillfactor = 50);
        -- The recovery's scan: handoffs whose lease has ended.
        CREATE INDEX idx_webhook_handoffs_lease ON webhook_handoffs (leased_until);
        -- Written and read by the gateway's functions as the owner: no policy, so a role confined
        -- by row-level security neither sees nor forges a row.
        ALTER TABLE webhook_handoffs ENABLE ROW LEVEL SECURITY;

        DROP FUNCTION \(expandSignature);
        DROP FUNCTION \(batchSignature);
        \(batchFunction)
        REVOKE EXECUTE ON FUNCTION \(batchSignature) FROM PUBLIC;
        \(expandFunction)
        DROP FUNCTION \(Migration0035.functions[2]);
        \(recordFunction)
        \(giveBackFunction)
        \(recoverFunction)
        """

    /// Migration 36's, writing one handoff per endpoint for what it hands
    /// over instead of a leased row per delivery, and returning its id with
    /// each delivery handed over.
    static let batchFunction: String = {
        var sql = SQLText.replacing(
            "body text, created_at float8)\nLANGUAGE plpgsql SECURITY DEFINER",
            with: "body text, created_at float8,\n               handoff_id bigint)\nLANGUAGE plpgsql SECURITY DEFINER",
            count: 1, in: Migration0036.sql)
        sql = SQLText.replacing(
            from: "    deliveries AS (\n", through: "           NULL;\n",
            with: """
                    -- Only what is not handed over is written as a delivery now: due at once, for any
                    -- node's claim.
                    deliveries AS (
                        INSERT INTO webhook_deliveries (id, workspace_id, event_id, endpoint_id, next_attempt_at)
                        -- The identity's own sequence, drawn in targets.
                        OVERRIDING SYSTEM VALUE
                        SELECT t.delivery_id, t.workspace_id, t.event_id, t.endpoint_id, now()
                          FROM targets t
                         WHERE NOT t.handed
                        RETURNING webhook_deliveries.id
                    ),
                    -- What is handed over: one row per endpoint, its deliveries in event order.
                    handoffs AS MATERIALIZED (
                        INSERT INTO webhook_handoffs (endpoint_id, workspace_id, leased_until, outstanding, delivery_ids,
                                                      event_ids)
                        SELECT t.endpoint_id, t.workspace_id, p_lease_end, count(*),
                               array_agg(t.delivery_id ORDER BY t.ord), array_agg(t.event_id ORDER BY t.ord)
                          FROM targets t
                         WHERE t.handed
                         GROUP BY t.endpoint_id, t.workspace_id
                        RETURNING webhook_handoffs.id, webhook_handoffs.endpoint_id
                    ),
                    gone AS (
                        DELETE FROM webhook_backlog b WHERE b.id = ANY (p_ids)
                    )
                    -- The bodies joined once, to what is handed over; sorted as targets were.
                    (SELECT NULL::int, NULL::int, NULL::int, t.delivery_id, t.event_id, t.endpoint_id, h.url, h.secret,
                            h.previous_secret, e.body, extract(epoch FROM t.created_at)::float8, o.id
                       FROM targets t
                       JOIN events e ON e.ord = t.ord
                       JOIN hooks h ON h.id = t.endpoint_id
                       JOIN handoffs o ON o.endpoint_id = t.endpoint_id
                      WHERE t.handed
                      ORDER BY t.ord, t.endpoint_id)
                    UNION ALL
                    SELECT (SELECT count(*) FROM stored)::int, (SELECT count(*) FROM written)::int,
                           (SELECT count(*) FROM targets WHERE NOT handed)::int, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                           NULL, NULL;

                """, count: 1, in: sql)
        return sql
    }()

    /// Migration 32's, passing each handed-over delivery's handoff on, with
    /// migration 35's `jit = off` in its definition.
    static let expandFunction: String = {
        var sql = SQLText.replacing(
            "body text, created_at float8)\nLANGUAGE plpgsql SET enable_seqscan = off AS $$",
            with: "body text, created_at float8,\n               handoff_id bigint)\n"
                + "LANGUAGE plpgsql SET enable_seqscan = off SET jit = off AS $$",
            count: 1, in: Migration0032.sql)
        sql = SQLText.replacing(
            "created_at := x.created_at;\n",
            with: "created_at := x.created_at;\n                handoff_id := x.handoff_id;\n", count: 1, in: sql)
        return SQLText.replacing(
            "created_at := NULL;\n", with: "created_at := NULL;\n    handoff_id := NULL;\n", count: 1, in: sql)
    }()

    /// Migration 30's record, and the outcomes of handed-over deliveries
    /// (`p_handoffs[i]` not NULL, with their events `p_event_ids[i]`) written
    /// as new rows in their final state.
    static let recordFunction = #"""
        -- As migration 30's switchboard_webhook_record, plus: an outcome whose p_handoffs[i] is set
        -- is of a delivery handed over at birth, which has no row yet: its row is written now, with
        -- the attempt counted, and its handoff settled (`switchboard_webhook_settle_handoffs`). One
        -- whose handoff is gone (recorded before, or recovered after its lease) writes nothing.
        CREATE FUNCTION switchboard_webhook_record(
            p_ids bigint[], p_endpoints uuid[], p_succeeded boolean[], p_status_codes int[], p_durations int[],
            p_errors text[], p_heads text[], p_next_at float8[], p_disable_after_hours int, p_handoffs bigint[],
            p_event_ids text[])
        RETURNS int
        LANGUAGE plpgsql SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off SET jit = off
        SET plan_cache_mode = force_generic_plan AS $$
        DECLARE
            v_written int;
            v_settled bigint[];
        BEGIN
            -- The handoffs first, in id order: no record waits for another's in the other order, and a
            -- recovery (SKIP LOCKED) leaves them to this one.
            PERFORM 1 FROM webhook_handoffs h WHERE h.id = ANY (p_handoffs) ORDER BY h.id FOR UPDATE;
            WITH o AS (
                SELECT * FROM unnest(p_ids, p_endpoints, p_succeeded, p_status_codes, p_durations, p_errors, p_heads,
                                     p_next_at, p_handoffs, p_event_ids)
                    AS o(id, endpoint_id, succeeded, status_code, duration_ms, error, response_head, next_at,
                         handoff_id, event_id)
            ),
            d AS (
                UPDATE webhook_deliveries d
                   SET status = CASE WHEN o.succeeded THEN 'succeeded' WHEN o.next_at IS NULL THEN 'failed'
                                     ELSE 'pending' END,
                       next_attempt_at = CASE WHEN o.succeeded THEN NULL ELSE to_timestamp(o.next_at) END,
                       leased_until = NULL, last_attempt_at = now(), last_status_code = o.status_code,
                       last_duration_ms = o.duration_ms, last_error = o.error, last_response_head = o.response_head,
                       updated_at = now()
                  -- Each claimed one's row found by its key, then updated where it was found (as
                  -- migration 37's claim): a generic plan made on an empty table joined the other way
                  -- round scanned every delivery, with the outcomes rescanned for each.
                  FROM (SELECT o.*, x.row_id
                          FROM o
                         CROSS JOIN LATERAL (SELECT w.ctid AS row_id FROM webhook_deliveries w
                                              WHERE w.endpoint_id = o.endpoint_id AND w.id = o.id LIMIT 1) x
                         WHERE o.handoff_id IS NULL) o
                 WHERE d.ctid = o.row_id AND d.endpoint_id = o.endpoint_id AND d.id = o.id
                   AND (d.status <> 'succeeded' OR o.succeeded)
                RETURNING d.endpoint_id, o.succeeded
            ),
            -- The outcomes of handed-over deliveries whose handoff is here and that have no row yet (a
            -- record repeated after a lost connection finds its rows written): with the handoffs
            -- locked, nothing else writes their rows meanwhile, so every one is inserted. A probe
            -- of the key, not ON CONFLICT: speculative insertion cost 5.7 µs more a row.
            -- Each outcome looks its handoff up (LATERAL and LIMIT 1: a lookup whatever the plan).
            todo AS MATERIALIZED (
                SELECT o.*, h.workspace_id, h.created_at
                  FROM o
                 CROSS JOIN LATERAL (SELECT h.workspace_id, h.created_at FROM webhook_handoffs h
                                      WHERE h.id = o.handoff_id AND h.endpoint_id = o.endpoint_id LIMIT 1) h
                 -- Not NOT EXISTS: planned as an anti join on an empty table, it scanned every delivery
                 -- for each outcome.
                  LEFT JOIN LATERAL (SELECT true AS written FROM webhook_deliveries w
                                      WHERE w.endpoint_id = o.endpoint_id AND w.id = o.id LIMIT 1) w ON true
                 WHERE w.written IS NULL
            ),
            born AS (
                INSERT INTO webhook_deliveries (endpoint_id, id, workspace_id, event_id, status, attempts,
                                                next_attempt_at, last_attempt_at, last_status_code,
                                                last_duration_ms, last_error, last_response_head, created_at)
                OVERRIDING SYSTEM VALUE
                SELECT t.endpoint_id, t.id, t.workspace_id, t.event_id,
                       CASE WHEN t.succeeded THEN 'succeeded' WHEN t.next_at IS NULL THEN 'failed' ELSE 'pending' END,
                       1, CASE WHEN t.succeeded THEN NULL ELSE to_timestamp(t.next_at) END, now(), t.status_code,
                       t.duration_ms, t.error, t.response_head, t.created_at
                  FROM todo t
            ),
            outcome AS (
                SELECT w.endpoint_id, bool_or(w.succeeded) AS succeeded
                  FROM (SELECT d.endpoint_id, d.succeeded FROM d
                        UNION ALL SELECT t.endpoint_id, t.succeeded FROM todo t) w
                 GROUP BY w.endpoint_id
            ),
            \#(endpointUpdate)
            SELECT (SELECT count(*) FROM d) + (SELECT count(*) FROM todo), (SELECT array_agg(t.handoff_id) FROM todo t)
              INTO v_written, v_settled;
            PERFORM switchboard_webhook_settle_handoffs(v_settled);
            RETURN v_written;
        END;
        $$;
        """#

    /// Migration 30's update of the endpoints an outcome changes, reading
    /// only those endpoints whichever side its plan scans first.
    static let endpointUpdate: String = {
        let update = SQLText.span(
            from: "    endpoint AS (\n", through: "    SELECT count(*) INTO v_written FROM d;", keepingEnd: false,
            in: Migration0030.sql)
        return SQLText.replacing(
            "WHERE e.id = p.endpoint_id\n", with: "WHERE e.id = p.endpoint_id AND e.id = ANY (p_endpoints)\n", count: 1,
            in: update
        ).trimmingPrefix("    ").description
    }()

    /// Handed-over deliveries given back unattempted, and the handoffs'
    /// bookkeeping both writers share.
    static let giveBackFunction = #"""
        -- Each handoff in p_handoffs (an element per delivery row written for it) has that many
        -- fewer deliveries outstanding; one with none left is deleted. The caller holds their rows.
        CREATE FUNCTION switchboard_webhook_settle_handoffs(p_handoffs bigint[])
        RETURNS void
        LANGUAGE plpgsql SET enable_seqscan = off SET jit = off SET plan_cache_mode = force_generic_plan AS $$
        DECLARE
            v_done bigint[];
        BEGIN
            IF cardinality(p_handoffs) IS NULL OR cardinality(p_handoffs) = 0 THEN
                RETURN;
            END IF;
            -- Found by the key (= ANY), each counting its own elements: no join a plan could turn into
            -- a scan of every handoff.
            WITH less AS (
                UPDATE webhook_handoffs h
                   SET outstanding = h.outstanding - (SELECT count(*) FROM unnest(p_handoffs) AS x(id) WHERE x.id = h.id)
                 WHERE h.id = ANY (p_handoffs)
                RETURNING h.id, h.outstanding
            )
            SELECT array_agg(l.id) FILTER (WHERE l.outstanding <= 0) INTO v_done FROM less l;
            IF v_done IS NOT NULL THEN
                DELETE FROM webhook_handoffs h WHERE h.id = ANY (v_done);
            END IF;
        END;
        $$;

        -- Deliveries p_ids of endpoints p_endpoints, events p_event_ids, handed over in handoffs
        -- p_handoffs and never attempted: written due now, the attempt not counted, while the lease
        -- lasts (once it has ended the recovery writes them, with the attempt counted, as for a
        -- holder that died). Returns the rows written; dispatchers are notified.
        CREATE FUNCTION switchboard_webhook_give_back(
            p_handoffs bigint[], p_ids bigint[], p_endpoints uuid[], p_event_ids text[])
        RETURNS int
        LANGUAGE plpgsql SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off SET jit = off
        SET plan_cache_mode = force_generic_plan AS $$
        DECLARE
            v_written int;
            v_settled bigint[];
        BEGIN
            PERFORM 1 FROM webhook_handoffs h WHERE h.id = ANY (p_handoffs) ORDER BY h.id FOR UPDATE;
            WITH r AS (
                SELECT * FROM unnest(p_handoffs, p_ids, p_endpoints, p_event_ids)
                    AS r(handoff_id, id, endpoint_id, event_id)
            ),
            todo AS MATERIALIZED (
                SELECT r.*, h.workspace_id, h.created_at
                  FROM r
                 CROSS JOIN LATERAL (SELECT h.workspace_id, h.created_at FROM webhook_handoffs h
                                      WHERE h.id = r.handoff_id AND h.endpoint_id = r.endpoint_id
                                        AND h.leased_until > now() LIMIT 1) h
                  LEFT JOIN LATERAL (SELECT true AS written FROM webhook_deliveries w
                                      WHERE w.endpoint_id = r.endpoint_id AND w.id = r.id LIMIT 1) w ON true
                 WHERE w.written IS NULL
            ),
            born AS (
                INSERT INTO webhook_deliveries (endpoint_id, id, workspace_id, event_id, next_attempt_at, created_at)
                OVERRIDING SYSTEM VALUE
                SELECT t.endpoint_id, t.id, t.workspace_id, t.event_id, now(), t.created_at FROM todo t
            )
            SELECT count(*), array_agg(t.handoff_id) INTO v_written, v_settled FROM todo t;
            PERFORM switchboard_webhook_settle_handoffs(v_settled);
            IF v_written > 0 THEN
                PERFORM pg_notify('switchboard_webhooks', '');
            END IF;
            RETURN v_written;
        END;
        $$;
        """#

    /// What a holder that died left: handoffs whose lease has ended.
    static let recoverFunction = #"""
        -- Up to p_limit handoffs whose lease has ended, not held by a record (SKIP LOCKED): each of
        -- their deliveries without a row is written due now, its attempt counted (it may have been
        -- made), and the handoffs deleted. Returns the rows written; dispatchers are notified.
        CREATE FUNCTION switchboard_webhook_recover_handoffs(p_limit int)
        RETURNS int
        LANGUAGE plpgsql SET jit = off AS $$
        DECLARE
            v_written int;
        BEGIN
            WITH ended AS (
                SELECT h.id FROM webhook_handoffs h
                 WHERE h.leased_until <= now()
                 ORDER BY h.leased_until
                 LIMIT p_limit
                   FOR UPDATE SKIP LOCKED
            ),
            gone AS (
                DELETE FROM webhook_handoffs h USING ended e WHERE h.id = e.id
                RETURNING h.endpoint_id, h.workspace_id, h.delivery_ids, h.event_ids, h.created_at
            ),
            born AS (
                INSERT INTO webhook_deliveries (endpoint_id, id, workspace_id, event_id, attempts, next_attempt_at,
                                                created_at)
                OVERRIDING SYSTEM VALUE
                SELECT g.endpoint_id, x.id, g.workspace_id, x.event_id, 1, now(), g.created_at
                  FROM gone g CROSS JOIN LATERAL unnest(g.delivery_ids, g.event_ids) AS x(id, event_id)
                ON CONFLICT (endpoint_id, id) DO NOTHING
                RETURNING 1
            )
            SELECT count(*) INTO v_written FROM born;
            IF v_written > 0 THEN
                PERFORM pg_notify('switchboard_webhooks', '');
            END IF;
            RETURN v_written;
        END;
        $$;
        """#

    private static let down = """
        -- Every handoff still waiting, whatever its lease: its deliveries due now, no event lost.
        INSERT INTO webhook_deliveries (endpoint_id, id, workspace_id, event_id, attempts, next_attempt_at, created_at)
        OVERRIDING SYSTEM VALUE
        SELECT g.endpoint_id, x.id, g.workspace_id, x.event_id, 1, now(), g.created_at
          FROM webhook_handoffs g CROSS JOIN LATERAL unnest(g.delivery_ids, g.event_ids) AS x(id, event_id)
        ON CONFLICT (endpoint_id, id) DO NOTHING;
        DROP FUNCTION switchboard_webhook_recover_handoffs(int);
        DROP FUNCTION switchboard_webhook_give_back(bigint[], bigint[], uuid[], text[]);
        DROP FUNCTION \(recordSignature);
        \(Migration0030.sql)
        ALTER FUNCTION \(Migration0035.functions[2]) SET jit = off;
        DROP FUNCTION switchboard_webhook_settle_handoffs(bigint[]);
        DROP FUNCTION \(expandSignature);
        DROP FUNCTION \(batchSignature);
        \(Migration0036.sql)
        REVOKE EXECUTE ON FUNCTION \(batchSignature) FROM PUBLIC;
        \(Migration0032.sql)
        ALTER FUNCTION \(expandSignature) SET jit = off;
        DROP TABLE webhook_handoffs;
        """
}
