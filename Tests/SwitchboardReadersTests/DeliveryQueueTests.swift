import Foundation
import SwitchboardPostgres
import SwitchboardReaders
import SwitchboardStore
import SwitchboardWebhooks
import Synchronization
import Testing

/// `PostgresDeliveryQueue` on real PostgreSQL: claims under a lease that two
/// claimers never share, the attempt count, what an outcome does to the
/// delivery and its endpoint (retry, fail, disable), and the admin's retries.
@Suite struct DeliveryQueueTests {
    /// `count` sessions created in the fixture's workspace, whose endpoint
    /// (returned) asks for session.created: `count` deliveries due now.
    private func dueDeliveries(_ fixture: ReadersFixture, _ count: Int) throws -> String {
        try fixture.admin.query("INSERT INTO workspaces (id, name) VALUES ($1::uuid, 'w')", [fixture.workspaceID])
        let endpoint = try WebhookSessionEventTests.endpoint(fixture, [.sessionCreated])
        try fixture.admin.query(
            "INSERT INTO chat_sessions (workspace_id, user_id) SELECT $1::uuid, 'v-' || g FROM generate_series(1, $2) g",
            [fixture.workspaceID, String(count)])
        return endpoint
    }

    /// `count` due deliveries, due a millisecond apart in the order of their ids, an hour ago.
    private func dueOneAfterAnother(_ fixture: ReadersFixture, _ count: Int) throws {
        _ = try dueDeliveries(fixture, count)
        try fixture.admin.query(
            "UPDATE webhook_deliveries SET next_attempt_at = now() - interval '1 hour' + id * interval '1 ms'")
    }

    /// A workspace with `count` endpoints for `message.created` and a
    /// visitor's session in it: the endpoints' ids and the session's.
    private func hookedSession(_ fixture: ReadersFixture, endpoints count: Int) throws -> ([String], String) {
        try fixture.admin.query("INSERT INTO workspaces (id, name) VALUES ($1::uuid, 'w')", [fixture.workspaceID])
        let endpoints = try (0..<count).map { _ in try WebhookSessionEventTests.endpoint(fixture, [.messageCreated]) }
        let session = try fixture.admin.query(
            "INSERT INTO chat_sessions (workspace_id, user_id) VALUES ($1::uuid, 'v-1') RETURNING id::text",
            [fixture.workspaceID]
        ).string(0, 0)!
        return (endpoints, session)
    }

    private func queue(_ fixture: ReadersFixture, disableAfterHours: Int = 72) -> PostgresDeliveryQueue {
        PostgresDeliveryQueue(databaseURL: fixture.database.url, disableAfterHours: disableAfterHours)
    }

    private func outcome(
        _ delivery: DueDelivery, succeeded: Bool, status: Int? = nil, next: Double? = nil
    ) -> DeliveryOutcome {
        DeliveryOutcome(
            deliveryID: delivery.id, endpointID: delivery.endpointID, eventID: delivery.eventID,
            handoffID: delivery.handoffID, succeeded: succeeded, statusCode: status ?? (succeeded ? 204 : 500),
            durationMilliseconds: 12,
            error: succeeded ? nil : "HTTP 500",
            responseHead: succeeded ? "" : "oops", nextAttemptAt: next)
    }

    private func row(_ fixture: ReadersFixture, _ id: String) throws -> [String?] {
        try fixture.admin.query(
            """
            SELECT status, attempts::text, last_status_code::text, last_error, last_response_head,
                   (next_attempt_at <= now())::text, leased_until IS NULL
              FROM webhook_deliveries WHERE id = $1::bigint
            """, [id]
        ).rows[0]
    }

    /// One writer's batch in `session`: a message from its visitor per
    /// client id in `ids`, with the text of `bodies` in the same place.
    private func appendMessages(
        _ fixture: ReadersFixture, _ session: String, ids: [String], bodies: [String]
    ) throws {
        try fixture.admin.query(
            """
            SELECT * FROM switchboard_append_messages(
                array_fill($1::uuid, ARRAY[$2::int]), $3::text[], array_fill('visitor'::text, ARRAY[$2::int]),
                array_fill('v-1'::text, ARRAY[$2::int]), array_fill(NULL::text, ARRAY[$2::int]),
                array_fill('text'::text, ARRAY[$2::int]), $4::text[])
            """, [session, String(ids.count), PostgresArray.textLiteral(ids), PostgresArray.textLiteral(bodies)])
    }

    /// Rows written of `deliveries`.
    private func rowCount(_ fixture: ReadersFixture, _ deliveries: [DueDelivery]) throws -> Int {
        Int(
            try fixture.admin.query(
                "SELECT count(*)::text FROM webhook_deliveries WHERE id = ANY ($1::bigint[])",
                ["{" + deliveries.map(\.id).joined(separator: ",") + "}"]
            ).string(0, 0)!)!
    }

    /// A handoff's deliveries outstanding, whether its lease lasts another 50 s, its deliveries and
    /// events; empty once it is gone.
    private func handoffRow(_ fixture: ReadersFixture, _ id: String) throws -> [String?] {
        let result = try fixture.admin.query(
            """
            SELECT outstanding::text, (leased_until > now() + interval '50 seconds')::text,
                   array_to_string(delivery_ids, ','), array_to_string(event_ids, ',')
              FROM webhook_handoffs WHERE id = $1::bigint
            """, [id])
        return result.rowCount == 0 ? [] : result.rows[0]
    }

    @Test func twoClaimersNeverHoldTheSameDelivery() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        _ = try dueDeliveries(fixture, 400)
        let queues = [queue(fixture), queue(fixture)]
        let claimed = Mutex<[String]>([])
        let failures = Mutex<[String]>([])
        let threads = (0..<4).map { index in
            Thread {
                let queue = queues[index % 2]
                while true {
                    do {
                        let batch = try queue.claim(limit: 7, leaseSeconds: 300, skipping: [])
                        if batch.isEmpty { return }
                        claimed.withLock { $0 += batch.map(\.id) }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                        return
                    }
                }
            }
        }
        for thread in threads { thread.start() }
        let deadline = Date().addingTimeInterval(60)
        while threads.contains(where: { !$0.isFinished }) && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        let ids = claimed.withLock { $0 }
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(
            ids.count == 400 && Set(ids).count == 400, "each delivery claimed once: \(ids.count), \(Set(ids).count)")
        #expect(try queues[0].claim(limit: 10, leaseSeconds: 300, skipping: []).isEmpty, "all are leased")
    }

    @Test func aClaimCarriesTheEventAndALapsedLeaseMakesItDueAgain() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let endpoint = try dueDeliveries(fixture, 1)
        let queue = queue(fixture)
        let first = try #require(try queue.claim(limit: 5, leaseSeconds: 60, skipping: []).first)
        #expect(first.endpointID == endpoint && first.url == "https://example.com/hook")
        #expect(first.secrets == ["whsec_t"] && first.attempt == 0)
        let event = try fixture.admin.query("SELECT body, extract(epoch FROM created_at)::float8 FROM webhook_events")
        #expect(first.body == event.string(0, 0) && first.eventID.hasPrefix("evt_"))
        #expect(abs(first.eventCreatedAt - Double(event.string(0, 1)!)!) < 0.001)
        #expect(try queue.claim(limit: 5, leaseSeconds: 60, skipping: []).isEmpty, "leased")

        // Leased, it is out of the due range until the lease's end.
        #expect(
            try fixture.admin.query(
                "SELECT (next_attempt_at = leased_until AND leased_until > now())::text FROM webhook_deliveries"
            )
            .string(0, 0) == "true")

        // The claimer died: its lease runs out and the delivery is due again, one attempt later.
        try fixture.admin.query(
            """
            UPDATE webhook_deliveries SET leased_until = leased_until - interval '61 seconds',
                   next_attempt_at = next_attempt_at - interval '61 seconds'
            """)
        let again = try #require(try queue.claim(limit: 5, leaseSeconds: 60, skipping: []).first)
        #expect(again.id == first.id && again.attempt == 1)

        // An endpoint at its bound is skipped.
        try fixture.admin.query("UPDATE webhook_deliveries SET leased_until = NULL, next_attempt_at = now()")
        #expect(try queue.claim(limit: 5, leaseSeconds: 60, skipping: [endpoint]).isEmpty)
        #expect(try queue.claim(limit: 5, leaseSeconds: 60, skipping: [UUID().uuidString.lowercased()]).count == 1)
    }

    /// A claim reads the due index from its oldest entry; the deliveries
    /// held in flight are not in its range, so claims cost the same however
    /// many a node holds (migration 24; before it, every claim fetched every
    /// held delivery's row to find it leased, and 210 entries were read here).
    @Test func aClaimDoesNotWalkPastTheDeliveriesHeldInFlight() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        // The 200 held are the oldest, at the index's front.
        try dueOneAfterAnother(fixture, 300)
        let held = try queue(fixture).claim(limit: 200, leaseSeconds: 60, skipping: [])
        #expect(held.count == 200)
        // The entries their claims left behind point to versions no snapshot may see: a scan marks
        // them dead as it passes (unless their page changed meanwhile, as it does in an index this
        // small), vacuum removes them. Held deliveries' own entries are live: vacuum keeps them.
        try fixture.admin.query("VACUUM webhook_deliveries")
        try fixture.admin.query("BEGIN")
        let before = try Self.dueEntriesReturned(fixture.admin)
        let claimed = try fixture.admin.query(
            "SELECT count(*)::text FROM switchboard_webhook_claim(10, 60, '{}', NULL, NULL)")
        let read = try Self.dueEntriesReturned(fixture.admin) - before
        try fixture.admin.query("COMMIT")
        #expect(claimed.string(0, 0) == "10")
        #expect(read <= 20, "due index entries read: \(read)")
    }

    /// Entries the due index returned to scans of this connection not yet
    /// reported to the statistics (which happens only between transactions:
    /// call it twice inside one and subtract).
    static func dueEntriesReturned(_ connection: PostgresConnection) throws -> Int {
        let read = try connection.query(
            "SELECT pg_stat_get_xact_tuples_returned('idx_webhook_deliveries_due'::regclass)::text")
        return Int(read.string(0, 0) ?? "") ?? .max
    }

    /// While another transaction is open, the entries of deliveries claimed
    /// and recorded since it began stay in the due index's front, and a
    /// claim from the front fetches each one's row again; a claim after the
    /// last one's position (migration 24) reads only what it takes.
    @Test func aClaimAfterAPositionDoesNotReadWhatWasDoneBeforeIt() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        try dueOneAfterAnother(fixture, 300)
        let reader = try fixture.database.connect()
        try reader.query("BEGIN ISOLATION LEVEL REPEATABLE READ")
        try reader.query("SELECT count(*) FROM webhook_deliveries")
        let done = try fixture.admin.query(
            "SELECT max(due_us)::text, max(id::bigint)::text FROM switchboard_webhook_claim(100, 60, '{}', NULL, NULL)")
        try fixture.admin.query(
            "UPDATE webhook_deliveries SET status = 'succeeded', next_attempt_at = NULL WHERE attempts = 1")

        func entriesRead(after: [String?]) throws -> (claimed: String?, read: Int) {
            try fixture.admin.query("BEGIN")
            let before = try Self.dueEntriesReturned(fixture.admin)
            let claimed = try fixture.admin.query(
                "SELECT count(*)::text FROM switchboard_webhook_claim(10, 60, '{}', $1::bigint, $2::bigint)", after)
            let read = try Self.dueEntriesReturned(fixture.admin) - before
            try fixture.admin.query("ROLLBACK")
            return (claimed.string(0, 0), read)
        }
        let fromFront = try entriesRead(after: [nil, nil])
        let fromPosition = try entriesRead(after: [done.string(0, 0), done.string(0, 1)])
        try reader.query("ROLLBACK")
        #expect(fromFront.claimed == "10" && fromPosition.claimed == "10")
        #expect(fromFront.read >= 100, "from the front: \(fromFront.read) entries")
        #expect(fromPosition.read <= 20, "from the position: \(fromPosition.read) entries")
    }

    /// What comes due behind the position (here a delivery given back with
    /// its old time) is claimed once the queue starts from the front again:
    /// when a claim finds fewer than it asked for, and at least every
    /// `rescanSeconds`.
    @Test func whatIsLeftBehindThePositionIsClaimedByTheNextScanFromTheFront() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        try dueOneAfterAnother(fixture, 40)
        // Rescans 4 s apart: the second claim comes well inside that on a loaded machine too.
        let queue = PostgresDeliveryQueue(databaseURL: fixture.database.url, disableAfterHours: 72, rescanSeconds: 4)
        let first = try queue.claim(limit: 10, leaseSeconds: 60, skipping: [])
        #expect(first.count == 10)
        // One of them due again behind the position, as if written by a transaction that began
        // before the claim and committed after it.
        try fixture.admin.query(
            """
            UPDATE webhook_deliveries SET leased_until = NULL, attempts = 0, next_attempt_at = now() - interval '2 hours'
             WHERE id = $1::bigint
            """, [first[0].id])
        let second = try queue.claim(limit: 10, leaseSeconds: 60, skipping: [])
        #expect(second.count == 10 && !second.contains { $0.id == first[0].id }, "after the position")
        Thread.sleep(forTimeInterval: 4.1)
        let third = try queue.claim(limit: 10, leaseSeconds: 60, skipping: [])
        #expect(third.first?.id == first[0].id, "from the front again: \(third.map(\.id))")
        // A claim that found fewer than it asked for sends the next one to the front at once.
        let rest = try queue.claim(limit: 30, leaseSeconds: 60, skipping: [])
        #expect(rest.count == 11)
        try fixture.admin.query(
            """
            UPDATE webhook_deliveries SET leased_until = NULL, next_attempt_at = now() - interval '2 hours'
             WHERE id = $1::bigint
            """, [second[0].id])
        #expect(try queue.claim(limit: 10, leaseSeconds: 60, skipping: []).map(\.id) == [second[0].id])
    }

    /// A delivery held and never attempted (its endpoint too slow to start it
    /// within the lease, the dispatcher stopping) is given back: due at once,
    /// its attempt not counted, so that such releases never use up retries.
    /// Once its lease has ended it is left alone (another claim may hold it).
    @Test func aDeliveryGivenBackUnattemptedIsDueAtOnceWithItsAttemptUncounted() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        _ = try dueDeliveries(fixture, 2)
        let queue = queue(fixture)
        let claimed = try queue.claim(limit: 5, leaseSeconds: 60, skipping: [])
        #expect(claimed.count == 2 && claimed.allSatisfy { $0.attempt == 0 })
        for _ in 1...3 {
            try queue.release(claimed)
            let rows = try claimed.map { try row(fixture, $0.id) }
            #expect(rows == Array(repeating: ["pending", "0", nil, nil, nil, "true", "t"], count: 2))
            let again = try queue.claim(limit: 5, leaseSeconds: 60, skipping: [])
            #expect(Set(again.map(\.id)) == Set(claimed.map(\.id)) && again.allSatisfy { $0.attempt == 0 })
        }
        // A lease that ended is not this caller's to give back: the attempt stays counted.
        try fixture.admin.query(
            """
            UPDATE webhook_deliveries SET leased_until = leased_until - interval '61 seconds',
                   next_attempt_at = next_attempt_at - interval '61 seconds'
            """)
        try queue.release(claimed)
        #expect(try row(fixture, claimed[0].id)[1] == "1")
        // Nor is a delivery recorded meanwhile (a release that comes after the outcome).
        let retaken = try queue.claim(limit: 5, leaseSeconds: 60, skipping: [])
        #expect(retaken.count == 2 && retaken.allSatisfy { $0.attempt == 1 })
        try queue.record(outcome(retaken[0], succeeded: true))
        try queue.release([retaken[0]])
        #expect(try row(fixture, retaken[0].id)[0...1] == ["succeeded", "2"])
    }

    /// Migrations 23 and 39: the expander's pass hands up to its limit of
    /// the deliveries it makes to its caller, with what a claim would
    /// return, as one handoff per endpoint leased to it; each delivery's row
    /// is written once, by its outcome's record (a repeat writes nothing
    /// more), by its giving back, or, once the lease has run out (its holder
    /// died), by the recovery a claim runs, which then takes it. Claims see
    /// only the rest meanwhile.
    @Test func deliveriesHandedOverAreWrittenOnceByWhatBecomesOfThem() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let (endpoints, session) = try hookedSession(fixture, endpoints: 2)
        let (first, second) = (endpoints[0], endpoints[1])
        // One batch of three messages: three events, six deliveries.
        try appendMessages(fixture, session, ids: ["a", "b", "c"], bodies: ["one", "two", "three"])

        let (pass, handed) = try fixture.queries.expandWebhookBacklog(handoff: .upTo(4), leaseSeconds: 60)
        #expect(pass.ranges == 1 && pass.messages == 3 && pass.events == 3 && pass.due == 2 && !pass.more)
        #expect(handed.count == 4)
        let events = try fixture.admin.query(
            "SELECT id, switchboard_webhook_event_body(id, type, workspace_id, body, message_id, session_version), extract(epoch FROM created_at)::float8 FROM webhook_events ORDER BY id"
        )
        var bodies: [String: (body: String, createdAt: Double)] = [:]
        for row in 0..<events.rowCount {
            bodies[events.string(row, 0)!] = (events.string(row, 1)!, Double(events.string(row, 2)!)!)
        }
        for delivery in handed {
            #expect(delivery.body == bodies[delivery.eventID]?.body, "the event's body, as a claim reads it")
            #expect(abs(delivery.eventCreatedAt - (bodies[delivery.eventID]?.createdAt ?? 0)) < 0.001)
            #expect([first, second].contains(delivery.endpointID) && delivery.url == "https://example.com/hook")
            #expect(delivery.secrets == ["whsec_t"] && delivery.attempt == 0)
        }
        #expect(Set(handed.map(\.id)).count == 4)
        // No row yet: one handoff per endpoint holds its two, leased for the minute asked.
        #expect(try rowCount(fixture, handed) == 0)
        let byHandoff = Dictionary(grouping: handed) { $0.handoffID ?? "" }
        #expect(byHandoff.count == 2 && byHandoff.values.allSatisfy { Set($0.map(\.endpointID)).count == 1 })
        for (handoff, deliveries) in byHandoff {
            #expect(
                try handoffRow(fixture, handoff) == [
                    "2", "true", deliveries.map(\.id).joined(separator: ","),
                    deliveries.map(\.eventID).joined(separator: ","),
                ])
        }

        let queue = PostgresDeliveryQueue(databaseURL: fixture.database.url, disableAfterHours: 72, recoverySeconds: 0)
        let claimed = try queue.claim(limit: 10, leaseSeconds: 60, skipping: [])
        #expect(claimed.count == 2 && Set(claimed.map(\.id)).isDisjoint(with: handed.map(\.id)))
        #expect(claimed.allSatisfy { $0.handoffID == nil })
        #expect(Set((handed + claimed).map { "\($0.eventID) \($0.endpointID)" }).count == 6, "each pair once")

        // Recorded: the row written in its final state, the attempt counted; recorded again (a record
        // repeated after a lost connection), nothing more is written or counted.
        let mine = byHandoff[handed[0].handoffID!]!
        let theirs = byHandoff.values.first { $0[0].handoffID != handed[0].handoffID }!
        try queue.record(outcome(mine[0], succeeded: true))
        #expect(try row(fixture, mine[0].id) == ["succeeded", "1", "204", nil, "", nil, "t"])
        try queue.record(outcome(mine[0], succeeded: true))
        #expect(try rowCount(fixture, [mine[0]]) == 1 && handoffRow(fixture, mine[0].handoffID!)[0] == "1")
        #expect(
            try fixture.admin.query(
                """
                SELECT (d.created_at = h.created_at)::text FROM webhook_deliveries d, webhook_handoffs h
                 WHERE d.id = $1::bigint AND h.id = $2::bigint
                """, [mine[0].id, mine[0].handoffID!]
            ).string(0, 0) == "true", "made when it was handed over")
        // A failure waits for its next attempt; the handoff's last outcome ends it.
        try queue.record(outcome(mine[1], succeeded: false, next: Date().timeIntervalSince1970 + 300))
        #expect(try row(fixture, mine[1].id) == ["pending", "1", "500", "HTTP 500", "oops", "false", "t"])
        #expect(try handoffRow(fixture, mine[0].handoffID!).isEmpty)

        // The other endpoint's holder died: its lease runs out, and the next claim writes its two due,
        // their attempt counted, and takes them.
        try fixture.admin.query(
            "UPDATE webhook_handoffs SET leased_until = now() - interval '1 second' WHERE id = $1::bigint",
            [theirs[0].handoffID!])
        let again = try queue.claim(limit: 10, leaseSeconds: 60, skipping: [])
        #expect(Set(again.map(\.id)) == Set(theirs.map(\.id)) && again.allSatisfy { $0.attempt == 1 })
        #expect(try handoffRow(fixture, theirs[0].handoffID!).isEmpty)
        // Its holder was only slow: its late record writes nothing over the claim's lease.
        try queue.record(outcome(theirs[0], succeeded: true))
        #expect(try row(fixture, theirs[0].id)[0...1] == ["pending", "2"] && rowCount(fixture, theirs) == 2)

        // Given back unattempted while its lease lasts: due now, the attempt not counted; after the
        // lease, nothing (the recovery writes it, as for a holder that died).
        try appendMessages(fixture, session, ids: ["g"], bodies: ["back"])
        let (_, back) = try fixture.queries.expandWebhookBacklog(handoff: .upTo(2), leaseSeconds: 60)
        #expect(back.count == 2 && Set(back.map(\.handoffID)).count == 2)
        try queue.release([back[0]])
        #expect(try row(fixture, back[0].id) == ["pending", "0", nil, nil, nil, "true", "t"])
        #expect(try handoffRow(fixture, back[0].handoffID!).isEmpty)
        let released = try queue.claim(limit: 10, leaseSeconds: 60, skipping: [])
        #expect(released.map(\.id) == [back[0].id] && released.first?.attempt == 0)
        try fixture.admin.query(
            "UPDATE webhook_handoffs SET leased_until = now() - interval '1 second' WHERE id = $1::bigint",
            [back[1].handoffID!])
        try queue.release([back[1]])
        #expect(try rowCount(fixture, [back[1]]) == 0)
        #expect(try queue.recoverHandoffsNow() == 1 && row(fixture, back[1].id)[0...1] == ["pending", "1"])
        #expect(try queue.claim(limit: 10, leaseSeconds: 60, skipping: []).map(\.id) == [back[1].id])

        // With no room, the pass hands nothing over and leaves every delivery due.
        try appendMessages(fixture, session, ids: ["d"], bodies: ["four"])
        let (full, none) = try fixture.queries.expandWebhookBacklog(handoff: .upTo(0), leaseSeconds: 60)
        #expect(full.events == 1 && full.due == 2 && none.isEmpty)
        #expect(try queue.claim(limit: 10, leaseSeconds: 60, skipping: []).count == 2)

        // An endpoint disabled after the batch committed gets its delivery, held, never handed over.
        try appendMessages(fixture, session, ids: ["e"], bodies: ["five"])
        try fixture.admin.query("UPDATE webhook_endpoints SET enabled = false WHERE id = $1::uuid", [first])
        let (later, handedLater) = try fixture.queries.expandWebhookBacklog(handoff: .upTo(10), leaseSeconds: 60)
        #expect(later.events == 1 && later.due == 1 && handedLater.map(\.endpointID) == [second])
        #expect(try queue.claim(limit: 10, leaseSeconds: 60, skipping: []).isEmpty, "its endpoint is disabled")
        try fixture.admin.query("UPDATE webhook_endpoints SET enabled = true WHERE id = $1::uuid", [first])
        #expect(try queue.claim(limit: 10, leaseSeconds: 60, skipping: []).map(\.endpointID) == [first])
    }

    /// Migration 39: deliveries handed over and not yet recorded count in
    /// the outbox's gauge (due when their lease ends) and fail with their
    /// endpoint when it is deleted, as their rows did.
    @Test func handedOverDeliveriesCountInTheGaugeAndFailWithTheirEndpoint() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let (endpoints, session) = try hookedSession(fixture, endpoints: 1)
        try appendMessages(fixture, session, ids: ["a", "b", "c"], bodies: ["one", "two", "three"])
        let (pass, handed) = try fixture.queries.expandWebhookBacklog(handoff: .upTo(2), leaseSeconds: 60)
        #expect(pass.due == 1 && handed.count == 2)
        var gauge = try #require(try fixture.queries.webhookOutboxGauges().first)
        #expect(gauge.endpointID == endpoints[0] && gauge.pending == 3 && gauge.oldestDueSeconds >= 0)
        try queue(fixture).record(outcome(handed[0], succeeded: true))
        gauge = try #require(try fixture.queries.webhookOutboxGauges().first)
        #expect(gauge.pending == 2)

        #expect(try fixture.queries.deleteWebhookEndpoint(id: endpoints[0], workspaceID: fixture.workspaceID))
        let rows = try fixture.admin.query("SELECT id::text, status, last_error FROM webhook_deliveries ORDER BY id")
        #expect(rows.rowCount == 3)
        #expect(rows.rows.contains { $0 == [handed[1].id, "failed", "the endpoint was deleted"] })
        #expect(rows.rows.contains { $0 == [handed[0].id, "succeeded", nil] })
        #expect(try fixture.admin.query("SELECT count(*) FROM webhook_handoffs").int(0, 0) == 0)
        #expect(try fixture.queries.webhookOutboxGauges().isEmpty)
    }

    /// Migration 39's down: a handoff still waiting has its deliveries
    /// written due, no event lost (migration 41's down first stores the
    /// bodies the gateway built); the expansion before it leases rows again;
    /// up again, it makes handoffs.
    @Test func migratingBelowHandoffsWritesWhatTheyHoldDue() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let (_, session) = try hookedSession(fixture, endpoints: 1)
        func append(_ text: String) throws { try appendMessages(fixture, session, ids: [text], bodies: [text]) }
        try append("a")
        try append("b")
        let (_, handed) = try fixture.queries.expandWebhookBacklog(handoff: .upTo(2), leaseSeconds: 60)
        #expect(handed.count == 2)
        let runner = try MigrationRunner(connection: fixture.admin)
        #expect(try runner.migrateDown(to: 38).map(\.version) == Array((39...Migrations.latestVersion).reversed()))
        for delivery in handed {
            #expect(try row(fixture, delivery.id) == ["pending", "1", nil, nil, nil, "true", "t"])
            // Migration 41's down wrote the message's body into its event: the bytes the gateway sent.
            let stored = try fixture.admin.query("SELECT body FROM webhook_events WHERE id = $1", [delivery.eventID])
            #expect(stored.string(0, 0) == delivery.body)
        }
        #expect(try fixture.admin.query("SELECT to_regclass('webhook_handoffs') IS NULL").string(0, 0) == "t")
        try append("c")
        let expanded = try fixture.admin.query(
            "SELECT delivery_id::text FROM switchboard_webhook_expand(2000, 1, 60, 1000, '{}', '{}')")
        let leasedID = try #require(expanded.rows.compactMap { $0[0] }.first)
        #expect(try row(fixture, leasedID)[0...1] == ["pending", "1"] && row(fixture, leasedID)[6] == "f")

        #expect(try runner.up().map(\.version) == Array(39...Migrations.latestVersion))
        try append("d")
        let (_, again) = try fixture.queries.expandWebhookBacklog(handoff: .upTo(1), leaseSeconds: 60)
        #expect(try again.count == 1 && again[0].handoffID != nil && rowCount(fixture, again) == 0)
    }

    /// What the expander asks once its wait for room ran out: is there an
    /// endpoint, besides those short of room, that takes message events?
    /// Enabled, live and subscribed to `message.created` or `note.created`,
    /// in any workspace.
    @Test func aMessageEndpointBesidesTheFullOnesIsOneThatIsLiveAndTakesMessages() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        try fixture.admin.query("INSERT INTO workspaces (id, name) VALUES ($1::uuid, 'w')", [fixture.workspaceID])
        #expect(try !fixture.queries.messageWebhookEndpointExists(besides: []), "no endpoint at all")
        _ = try WebhookSessionEventTests.endpoint(fixture, [.sessionCreated, .sessionUpdated])
        #expect(try !fixture.queries.messageWebhookEndpointExists(besides: []), "session events only")
        let messages = try WebhookSessionEventTests.endpoint(fixture, [.messageCreated])
        #expect(try fixture.queries.messageWebhookEndpointExists(besides: []))
        #expect(try !fixture.queries.messageWebhookEndpointExists(besides: [messages]), "the only one is full")
        // An id that is no uuid is no endpoint: it fails nothing.
        #expect(try !fixture.queries.messageWebhookEndpointExists(besides: [messages, "not-a-uuid"]))
        let other = UUID().uuidString.lowercased()
        try fixture.admin.query("INSERT INTO workspaces (id, name) VALUES ($1::uuid, 'other')", [other])
        let notes = try WebhookSessionEventTests.endpoint(fixture, [.noteCreated], workspace: other)
        #expect(try fixture.queries.messageWebhookEndpointExists(besides: [messages]), "another workspace's counts")
        try fixture.admin.query("UPDATE webhook_endpoints SET enabled = false WHERE id = $1::uuid", [notes])
        #expect(try !fixture.queries.messageWebhookEndpointExists(besides: [messages]), "a disabled one does not")
        try fixture.admin.query(
            "UPDATE webhook_endpoints SET enabled = true, deleted_at = now() WHERE id = $1::uuid", [notes])
        #expect(try !fixture.queries.messageWebhookEndpointExists(besides: [messages]), "nor a deleted one")
    }

    /// Migration 29: of each endpoint, a pass hands over no more than its
    /// share less what the caller holds of it, however much room there is in
    /// all; the rest are due, for claims.
    @Test func aHandOverKeepsEachEndpointToItsShare() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let (endpoints, session) = try hookedSession(fixture, endpoints: 3)
        let (full, busy, idle) = (endpoints[0], endpoints[1], endpoints[2])
        // Four messages: twelve deliveries, four of each endpoint.
        try appendMessages(fixture, session, ids: ["a", "b", "c", "d"], bodies: ["one", "two", "three", "four"])
        // A share of 3: `full` holds 3 already, `busy` 1, `idle` none.
        let room = HandOffRoom(limit: 100, perEndpoint: 3, held: [full: 3, busy: 1])
        #expect(room.room(of: full) == 0 && room.room(of: busy) == 2 && room.room(of: idle) == 3)
        #expect(room.everyEndpoint == 0)
        let (pass, handed) = try fixture.queries.expandWebhookBacklog(handoff: room, leaseSeconds: 60)
        #expect(pass.events == 4 && pass.due == 7)
        let handedByEndpoint = Dictionary(grouping: handed, by: \.endpointID).mapValues(\.count)
        #expect(handedByEndpoint == [busy: 2, idle: 3], "\(handedByEndpoint)")
        // Each endpoint's first events in order: the oldest are sent first.
        let eventOrder = try fixture.admin.query("SELECT id FROM webhook_events ORDER BY id")
        let events = (0..<eventOrder.rowCount).map { eventOrder.string($0, 0)! }
        #expect(handed.filter { $0.endpointID == busy }.map(\.eventID) == Array(events[0..<2]))
        #expect(handed.filter { $0.endpointID == idle }.map(\.eventID) == Array(events[0..<3]))
        let claimed = try queue(fixture).claim(limit: 20, leaseSeconds: 60, skipping: [])
        #expect(claimed.count == 7 && Set(claimed.map(\.id)).isDisjoint(with: handed.map(\.id)))
        #expect(Set((handed + claimed).map { "\($0.eventID) \($0.endpointID)" }).count == 12, "each pair once")
    }

    /// Migration 28: a pass's budget that ends inside a writer's batch takes
    /// the batch's first messages and leaves the rest in its place in line,
    /// ahead of later batches; every message becomes one event, whatever the
    /// passes, each carrying its batch's session version.
    @Test func aBudgetEndingInsideABatchTakesItsFirstMessagesAndTheRestKeepsItsPlace() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let (_, session) = try hookedSession(fixture, endpoints: 1)
        var ids: [String] = []
        var versions: [Int] = []
        for batch in [["a", "b", "c", "d", "e"], ["f"]] {
            let stored = try fixture.admin.query(
                """
                SELECT id::text, session_version FROM switchboard_append_messages(
                    array_fill($1::uuid, ARRAY[$3::int]), string_to_array($2, ','),
                    array_fill('visitor'::text, ARRAY[$3::int]), array_fill('v-1'::text, ARRAY[$3::int]),
                    array_fill(NULL::text, ARRAY[$3::int]), array_fill('text'::text, ARRAY[$3::int]),
                    string_to_array($2, ','))
                 WHERE status = 'stored' ORDER BY ord
                """, [session, batch.joined(separator: ","), String(batch.count)])
            ids += (0..<stored.rowCount).map { stored.string($0, 0)! }
            versions.append(try #require(stored.int(stored.rowCount - 1, 1)))
        }
        let backlog = try fixture.admin.query("SELECT count(*) FROM webhook_backlog").int(0, 0)
        #expect(ids.count == 6 && backlog == 2)
        let waiting = try fixture.queries.webhookBacklogGauge()
        #expect(waiting.messages == 6 && waiting.oldestSeconds >= 0 && waiting.oldestSeconds < 60, "\(waiting)")

        func messages(of handed: [DueDelivery]) throws -> [String] {
            try handed.map { delivery in
                let body = try #require(
                    JSONSerialization.jsonObject(with: Data(delivery.body.utf8)) as? [String: Any])
                let data = body["data"] as? [String: Any]
                let session = data?["session"] as? [String: Any]
                let message = try #require(data?["message"] as? [String: Any])
                let id = try #require(message["id"] as? String)
                #expect(session?["version"] as? Int == versions[ids.firstIndex(of: id)! < 5 ? 0 : 1], "\(id)")
                return id
            }.sorted()
        }
        let (first, firstHanded) = try fixture.queries.expandWebhookBacklog(
            budget: 2, handoff: .upTo(2), leaseSeconds: 60)
        #expect(first.ranges == 1 && first.messages == 2 && first.events == 2 && first.due == 0 && first.more)
        #expect(try messages(of: firstHanded) == Array(ids[0..<2]))
        #expect(try fixture.admin.query("SELECT count(*) FROM webhook_backlog").int(0, 0) == 2, "the rest stays")
        #expect(try fixture.queries.webhookBacklogGauge().messages == 4)

        // The first batch's rest comes before the second batch.
        let (second, secondHanded) = try fixture.queries.expandWebhookBacklog(
            budget: 2, handoff: .upTo(2), leaseSeconds: 60)
        #expect(second.ranges == 1 && second.messages == 2 && second.more)
        #expect(try messages(of: secondHanded) == Array(ids[2..<4]))

        let (last, lastHanded) = try fixture.queries.expandWebhookBacklog(
            budget: 10, handoff: .upTo(10), leaseSeconds: 60)
        #expect(last.ranges == 2 && last.messages == 2 && last.events == 2 && !last.more)
        #expect(try messages(of: lastHanded) == Array(ids[4..<6]))
        #expect(try fixture.admin.query("SELECT count(*) FROM webhook_backlog").int(0, 0) == 0)
        let drained = try fixture.queries.webhookBacklogGauge()
        #expect(drained.messages == 0 && drained.oldestSeconds == 0)
        let events = try fixture.admin.query(
            "SELECT count(*), count(DISTINCT message_id) FROM webhook_events")
        #expect(events.int(0, 0) == 6 && events.int(0, 1) == 6, "each message once")
    }

    /// A pass locks no more backlog rows than it may take (migration 32): 32
    /// batches at most, whatever its budget, so that it writes no lock to rows
    /// it leaves, and another node's expander takes the next rows meanwhile.
    @Test func aPassTakesAtMostThirtyTwoBatchesAndLeavesTheRestToAnotherNode() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let (_, session) = try hookedSession(fixture, endpoints: 1)
        // 80 batches of one message each: 80 backlog rows.
        for index in 0..<80 { try fixture.append(session: session, clientID: "m-\(index)", body: "hello \(index)") }
        #expect(try fixture.admin.query("SELECT count(*) FROM webhook_backlog").int(0, 0) == 80)

        // A pass of another node, its transaction still open, holds the rows it took.
        try fixture.admin.execute("BEGIN")
        let other = try fixture.admin.query(
            "SELECT ranges, messages, more FROM switchboard_webhook_expand(2000, 0, 60, 256, '{}', '{}') WHERE ranges IS NOT NULL"
        )
        #expect(other.int(0, 0) == 32 && other.int(0, 1) == 32 && other.string(0, 2) == "t", "\(other.rows)")
        // This node's pass skips them and takes the next 32, not nothing.
        let (pass, _) = try fixture.queries.expandWebhookBacklog(budget: 2000)
        #expect(pass.ranges == 32 && pass.messages == 32 && pass.more, "\(pass)")
        try fixture.admin.execute("COMMIT")
        let (last, _) = try fixture.queries.expandWebhookBacklog(budget: 2000)
        #expect(last.ranges == 16 && last.messages == 16 && !last.more, "\(last)")
        let events = try fixture.admin.query(
            "SELECT count(*), count(DISTINCT message_id) FROM webhook_events")
        #expect(events.int(0, 0) == 80 && events.int(0, 1) == 80, "each message once")
    }

    /// Migration 23's claim reads the due index in order and stops after
    /// its limit even when the statistics were taken before the backlog grew:
    /// the statement it replaced then fetched every due delivery and sorted
    /// them (a claim cost O(backlog), and a large outbox drained ever slower).
    @Test func aClaimReadsWhatItTakesNotTheBacklogWhateverTheStatisticsSay() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        try fixture.admin.query("ALTER TABLE webhook_deliveries SET (autovacuum_enabled = false)")
        try fixture.admin.query("ANALYZE webhook_deliveries")
        _ = try dueDeliveries(fixture, 2000)
        let claimer = try fixture.database.connect()
        try claimer.query("BEGIN")
        let claimed = try claimer.query("SELECT count(*) FROM switchboard_webhook_claim(5, 60, '{}', NULL, NULL)")
        let read = try claimer.query(
            """
            SELECT coalesce(idx_tup_fetch, 0) + coalesce(seq_tup_read, 0) FROM pg_stat_xact_user_tables
             WHERE relname = 'webhook_deliveries'
            """)
        try claimer.query("ROLLBACK")
        #expect(claimed.int(0, 0) == 5)
        let fetched = try #require(read.int(0, 0))
        #expect(fetched < 100, "deliveries read by a claim of 5 out of 2,000 due: \(fetched)")
    }

    @Test func outcomesRetryFailAndSucceed() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let endpoint = try dueDeliveries(fixture, 3)
        let queue = queue(fixture)
        let claimed = try queue.claim(limit: 3, leaseSeconds: 60, skipping: [])
        #expect(claimed.count == 3)
        let (retried, failed, delivered) = (claimed[0], claimed[1], claimed[2])

        // A failure with a next attempt: pending, due then; the endpoint starts failing.
        try queue.record(outcome(retried, succeeded: false, next: Date().timeIntervalSince1970 - 1))
        #expect(try row(fixture, retried.id) == ["pending", "1", "500", "HTTP 500", "oops", "true", "t"])
        let failingSince = try fixture.admin.query(
            "SELECT failing_since IS NOT NULL FROM webhook_endpoints WHERE id = $1::uuid", [endpoint])
        #expect(failingSince.bool(0, 0) == true)
        let next = try #require(try queue.claim(limit: 3, leaseSeconds: 60, skipping: []).first)
        #expect(next.id == retried.id && next.attempt == 1, "due again, the count before this attempt")

        // Without a next attempt: failed, for good (until an admin retries).
        try queue.record(outcome(failed, succeeded: false))
        #expect(try row(fixture, failed.id)[0] == "failed")

        // A success ends the endpoint's failure; a late failure of the same delivery undoes nothing.
        try queue.record(outcome(delivered, succeeded: true))
        #expect(try row(fixture, delivered.id).prefix(3) == ["succeeded", "1", "204"])
        try queue.record(outcome(delivered, succeeded: false, next: Date().timeIntervalSince1970))
        #expect(try row(fixture, delivered.id)[0] == "succeeded")
        let cleared = try fixture.admin.query(
            "SELECT failing_since IS NULL, enabled FROM webhook_endpoints WHERE id = $1::uuid", [endpoint])
        #expect(cleared.bool(0, 0) == true && cleared.bool(0, 1) == true)
    }

    @Test func manyOutcomesInOneCallEachLandAndAnySuccessKeepsTheEndpointWell() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let endpoint = try dueDeliveries(fixture, 6)
        let queue = queue(fixture)
        let claimed = try queue.claim(limit: 6, leaseSeconds: 60, skipping: [])
        #expect(claimed.count == 6)
        var awkward = outcome(claimed[0], succeeded: false, status: 502, next: Date().timeIntervalSince1970 - 1)
        awkward.error = #"say "hi", {x} \ NULL"#
        awkward.responseHead = "NULL"
        var unanswered = outcome(claimed[3], succeeded: false, next: Date().timeIntervalSince1970 + 3600)
        unanswered.statusCode = nil
        unanswered.error = nil
        try queue.record([
            awkward, outcome(claimed[1], succeeded: false), outcome(claimed[2], succeeded: true), unanswered,
        ])
        #expect(
            try row(fixture, claimed[0].id) == ["pending", "1", "502", #"say "hi", {x} \ NULL"#, "NULL", "true", "t"])
        #expect(try row(fixture, claimed[1].id)[0] == "failed")
        #expect(try row(fixture, claimed[2].id).prefix(3) == ["succeeded", "1", "204"])
        #expect(try row(fixture, claimed[3].id) == ["pending", "1", nil, nil, "oops", "false", "t"])
        let afterMixed = try fixture.admin.query(
            "SELECT failing_since IS NULL FROM webhook_endpoints WHERE id = $1::uuid", [endpoint])
        #expect(afterMixed.bool(0, 0) == true, "a success in the batch: the endpoint answers")

        // Only failures: the endpoint starts failing.
        try queue.record([outcome(claimed[4], succeeded: false), outcome(claimed[5], succeeded: false)])
        let afterFailures = try fixture.admin.query(
            "SELECT failing_since IS NOT NULL FROM webhook_endpoints WHERE id = $1::uuid", [endpoint])
        #expect(afterFailures.bool(0, 0) == true)
        #expect(try queue.claim(limit: 6, leaseSeconds: 60, skipping: []).map(\.id) == [claimed[0].id])
    }

    @Test func anEndpointFailingLongerThanTheLimitIsDisabledAndAnAdminBringsItBack() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let endpoint = try dueDeliveries(fixture, 2)
        let queue = queue(fixture, disableAfterHours: 72)
        let claimed = try queue.claim(limit: 1, leaseSeconds: 60, skipping: [])
        // Failing for 71 hours: still enabled.
        try fixture.admin.query("UPDATE webhook_endpoints SET failing_since = now() - interval '71 hours'")
        try queue.record(outcome(claimed[0], succeeded: false, next: Date().timeIntervalSince1970 - 1))
        var state = try #require(try fixture.queries.webhookEndpoint(id: endpoint, workspaceID: fixture.workspaceID))
        #expect(state.enabled && state.disabledReason == nil && state.failingSince != nil)
        // Past 72: the next failure disables it, and its deliveries wait.
        try fixture.admin.query("UPDATE webhook_endpoints SET failing_since = now() - interval '73 hours'")
        let again = try queue.claim(limit: 1, leaseSeconds: 60, skipping: [])
        try queue.record(outcome(again[0], succeeded: false, next: Date().timeIntervalSince1970 - 1))
        state = try #require(try fixture.queries.webhookEndpoint(id: endpoint, workspaceID: fixture.workspaceID))
        #expect(!state.enabled)
        #expect(state.disabledReason?.contains("webhooks.disable_after_hours (72 h)") == true, "\(state)")
        #expect(try queue.claim(limit: 5, leaseSeconds: 60, skipping: []).isEmpty, "a disabled endpoint gets nothing")
        // Nor do new events go to it.
        try fixture.admin.query("INSERT INTO chat_sessions (workspace_id) VALUES ($1::uuid)", [fixture.workspaceID])
        #expect(try fixture.admin.query("SELECT count(*) FROM webhook_deliveries").int(0, 0) == 2)

        // Enabled again by an admin: no longer failing, and what waited is due.
        state = try #require(
            try fixture.queries.changeWebhookEndpoint(
                id: endpoint, workspaceID: fixture.workspaceID, WebhookEndpointChange(enabled: true)))
        #expect(state.enabled && state.disabledReason == nil && state.failingSince == nil)
        #expect(try queue.claim(limit: 5, leaseSeconds: 60, skipping: []).count == 2)
    }

    @Test func anAdminRetriesOneDeliveryOrEveryFailedOneSinceATime() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let endpoint = try dueDeliveries(fixture, 3)
        let queue = queue(fixture)
        for delivery in try queue.claim(limit: 3, leaseSeconds: 60, skipping: []) {
            try queue.record(outcome(delivery, succeeded: false))
        }
        let page = try fixture.queries.webhookDeliveries(
            endpointID: endpoint, workspaceID: fixture.workspaceID, status: .failed, before: nil, limit: 2)
        #expect(page.deliveries.count == 2 && page.next != nil)
        #expect(page.deliveries.allSatisfy { $0.eventType == "session.created" && $0.lastStatusCode == 500 })
        #expect(page.deliveries.allSatisfy { $0.lastResponseHead == "oops" && $0.nextAttemptAt == nil })
        let rest = try fixture.queries.webhookDeliveries(
            endpointID: endpoint, workspaceID: fixture.workspaceID, status: nil, before: page.next, limit: 2)
        #expect(rest.deliveries.count == 1 && rest.next == nil)
        let ids = (page.deliveries + rest.deliveries).map(\.id)
        #expect(ids == ids.sorted { Int($0)! > Int($1)! }, "newest first")

        // One, by hand: due now, its attempts kept.
        let one = try #require(
            try fixture.queries.retryWebhookDelivery(
                id: Int64(ids[0])!, endpointID: endpoint, workspaceID: fixture.workspaceID))
        #expect(one.status == .pending && one.attempts == 1 && one.nextAttemptAt != nil)
        let retried = try queue.claim(limit: 5, leaseSeconds: 60, skipping: [])
        #expect(retried.map(\.id) == [ids[0]] && retried[0].attempt == 1)
        // Another workspace's admin cannot reach it.
        #expect(
            try fixture.queries.retryWebhookDelivery(
                id: Int64(ids[1])!, endpointID: endpoint, workspaceID: UUID().uuidString.lowercased()) == nil)

        // Every failed one since a time: those of events before it stay failed.
        try fixture.admin.query(
            "UPDATE webhook_deliveries SET created_at = now() - interval '2 days' WHERE id = $1::bigint", [ids[2]])
        let dayAgo = try fixture.admin.query("SELECT (now() - interval '1 day')::text").string(0, 0)!
        let recent = try fixture.queries.retryFailedWebhookDeliveries(
            endpointID: endpoint, workspaceID: fixture.workspaceID, sinceUTC: dayAgo)
        #expect(recent == 1)
        #expect(try row(fixture, ids[1])[0] == "pending" && row(fixture, ids[2])[0] == "failed")
        let all = try fixture.queries.retryFailedWebhookDeliveries(
            endpointID: endpoint, workspaceID: fixture.workspaceID, sinceUTC: "2000-01-01 00:00:00+00")
        #expect(all == 1, "the older one; the others are not failed any more")
        #expect(
            try queue.claim(limit: 5, leaseSeconds: 60, skipping: []).map(\.id).sorted() == [ids[1], ids[2]].sorted())
    }

    @Test func rotationSignsWithBothSecretsUntilTheOverlapEnds() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let endpoint = try dueDeliveries(fixture, 1)
        let rotated = try #require(
            try fixture.queries.rotateWebhookSecret(
                id: endpoint, workspaceID: fixture.workspaceID, secret: "whsec_new", overlapSeconds: 3600))
        #expect(rotated.previousSecretExpiresAt != nil)
        let queue = queue(fixture)
        let during = try #require(try queue.claim(limit: 1, leaseSeconds: 60, skipping: []).first)
        #expect(during.secrets == ["whsec_new", "whsec_t"])
        try fixture.admin.query("UPDATE webhook_deliveries SET leased_until = NULL, next_attempt_at = now()")
        try fixture.admin.query("UPDATE webhook_endpoints SET previous_secret_expires_at = now() - interval '1 second'")
        let after = try #require(try queue.claim(limit: 1, leaseSeconds: 60, skipping: []).first)
        #expect(after.secrets == ["whsec_new"])
        #expect(
            try fixture.queries.webhookEndpoint(id: endpoint, workspaceID: fixture.workspaceID)?.previousSecretExpiresAt
                == nil)
    }

    @Test func aTestEventGoesToItsEndpointAloneAndDeletionAbandonsWhatWaits() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let endpoint = try dueDeliveries(fixture, 2)
        let other = try WebhookSessionEventTests.endpoint(fixture, [.messageCreated])
        let event = try #require(
            try fixture.queries.sendWebhookTestEvent(endpointID: other, workspaceID: fixture.workspaceID))
        let queue = queue(fixture)
        let claimed = try queue.claim(limit: 10, leaseSeconds: 60, skipping: [endpoint])
        #expect(claimed.map(\.eventID) == [event])
        let body = try #require(
            JSONSerialization.jsonObject(with: Data(claimed[0].body.utf8)) as? [String: Any])
        #expect(body["type"] as? String == WebhookTestEvent.type)
        #expect((body["data"] as? [String: Any])?["endpoint_id"] as? String == other)
        #expect(
            try fixture.queries.sendWebhookTestEvent(endpointID: other, workspaceID: UUID().uuidString.lowercased())
                == nil)

        let gauges = try fixture.queries.webhookOutboxGauges()
        #expect(gauges.first { $0.endpointID == endpoint }?.pending == 2)
        #expect((gauges.first { $0.endpointID == endpoint }?.oldestDueSeconds ?? -1) >= 0)

        #expect(try fixture.queries.deleteWebhookEndpoint(id: endpoint, workspaceID: fixture.workspaceID))
        #expect(try !fixture.queries.deleteWebhookEndpoint(id: endpoint, workspaceID: fixture.workspaceID))
        #expect(try queue.claim(limit: 10, leaseSeconds: 60, skipping: []).isEmpty)
        let abandoned = try fixture.admin.query(
            "SELECT status, last_error FROM webhook_deliveries WHERE endpoint_id = $1::uuid", [endpoint])
        #expect(abandoned.rows.allSatisfy { $0 == ["failed", "the endpoint was deleted"] })
        #expect(try fixture.queries.webhookOutboxGauges().map(\.endpointID) == [other])
    }
}

extension HandOffRoom {
    /// Room for `limit` deliveries, of one endpoint or many, none held yet.
    static func upTo(_ limit: Int) -> HandOffRoom { HandOffRoom(limit: limit, perEndpoint: limit, held: [:]) }
}
