import Foundation
import SwitchboardPostgres
import SwitchboardTestSupport
import SwitchboardWriter
import Synchronization
import Testing

/// The outbox of messages (migrations 13 and 21): a batch with an endpoint
/// asking for its messages writes one backlog row in its own transaction, and
/// the expander (`switchboard_webhook_expand`, the gateway's
/// `WebhookExpander`) turns it into `message.created` (or `note.created`)
/// events and deliveries after the commit, once per new message, only where
/// an endpoint asked for them, carrying what the batch left.
@Suite struct WebhookOutboxTests {
    /// An endpoint of `workspace` asking for `events`; its id.
    private func endpoint(
        _ db: PostgresConnection, _ workspace: String, _ events: [String], enabled: Bool = true
    ) throws -> String {
        let result = try db.query(
            """
            INSERT INTO webhook_endpoints (workspace_id, url, events, secret, enabled)
            VALUES ($1::uuid, 'https://example.com/hook', string_to_array($2, ','), 'whsec_test', $3::boolean)
            RETURNING id::text
            """, [workspace, events.joined(separator: ","), enabled ? "true" : "false"])
        return result.string(0, 0)!
    }

    /// What the gateway's expander does after a commit: every waiting batch made into events.
    @discardableResult
    private func expand(_ db: PostgresConnection) throws -> (ranges: Int, events: Int) {
        let pass = try db.query(
            "SELECT ranges, events FROM switchboard_webhook_expand(1000000, 0, 60, 0, '{}', '{}') WHERE delivery_id IS NULL"
        )
        return (pass.int(0, 0) ?? -1, pass.int(0, 1) ?? -1)
    }

    private func workspace(of session: String, _ db: PostgresConnection) throws -> String {
        try db.query("SELECT workspace_id::text FROM chat_sessions WHERE id = $1::uuid", [session]).string(0, 0)!
    }

    /// Each event: (type, the message id its body names, its body parsed).
    private func events(_ db: PostgresConnection) throws -> [(type: String, messageID: String, body: [String: Any])] {
        let result = try db.query(
            "SELECT type, switchboard_webhook_event_body(id, type, workspace_id, body, message_id, session_version), id FROM webhook_events WHERE type <> 'session.updated' ORDER BY id"
        )
        return try (0..<result.rowCount).map { row in
            let body = try #require(
                JSONSerialization.jsonObject(with: Data(result.string(row, 1)!.utf8)) as? [String: Any])
            #expect(body["id"] as? String == result.string(row, 2), "the body names its own event")
            let message = (body["data"] as? [String: Any])?["message"] as? [String: Any]
            return (result.string(row, 0)!, message?["id"] as? String ?? "", body)
        }
    }

    /// endpoint id -> the message ids its deliveries carry.
    private func deliveries(_ db: PostgresConnection) throws -> [String: [String]] {
        let result = try db.query(
            """
            SELECT d.endpoint_id::text, (switchboard_webhook_event_body(ev.id, ev.type, ev.workspace_id, ev.body, ev.message_id, ev.session_version)::jsonb -> 'data' -> 'message' ->> 'id')
              FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
             WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND ev.type LIKE '%.created'
               AND ev.type <> 'session.created'
            """)
        var map: [String: [String]] = [:]
        for row in 0..<result.rowCount { map[result.string(row, 0)!, default: []].append(result.string(row, 1)!) }
        return map.mapValues { $0.sorted() }
    }

    @Test func aBatchWritesOneEventPerNewMessageAndADeliveryPerSubscribedEndpoint() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let hooked = try makeSessions(db, count: 3)
        let plain = try makeSessions(db, count: 2)
        let owner = try db.connect()
        let workspace = try workspace(of: hooked[0], owner)
        let messages = try endpoint(owner, workspace, ["message.created"])
        let everything = try endpoint(owner, workspace, ["message.created", "note.created", "session.created"])
        let notes = try endpoint(owner, workspace, ["note.created"])
        _ = try endpoint(owner, workspace, ["message.created"], enabled: false)
        _ = try endpoint(owner, workspace, ["session.deleted"])

        let collector = ResultCollector()
        // One batch (one connection, a long delay, a batch of exactly the commands below).
        let writer = try startedWriter(
            WriterConfiguration(
                databaseURL: db.url, maxBatchMessages: 9, maxBatchDelayMilliseconds: 60_000, connections: 1),
            collector)
        defer { writer.stop() }
        var commands: [WriteCommand] = []
        for (index, session) in (hooked + plain).enumerated() {
            commands.append(command(session: session, clientID: "m\(index)", token: UInt64(index)))
        }
        commands.append(command(session: hooked[0], clientID: "m0", token: 5, body: "the same, resent"))
        var note = command(session: hooked[1], clientID: "n1", token: 6, body: "between us")
        note.kind = "note"
        commands.append(note)
        commands.append(command(session: hooked[2], clientID: "m7", token: 7))
        commands.append(command(session: plain[0], clientID: "m8", token: 8))
        for command in commands { #expect(writer.submit(command) == .accepted) }
        _ = try collector.wait(for: commands.count)
        let results = try collector.byToken()
        #expect(collector.batchSizes == [9], "one batch")
        #expect(results[5]?.outcome.isStored == false, "the resend is a duplicate")

        let stored: [String] = [0, 1, 2, 7].compactMap { results[$0]?.outcome.message?.id }.sorted()
        let noteID = try #require(results[6]?.outcome.message?.id)
        // Committed: the batch's backlog row, no event yet; the expander makes them.
        #expect(try owner.count("SELECT count(*) FROM webhook_backlog") == 1)
        #expect(try events(owner).isEmpty)
        #expect(try expand(owner) == (1, 5))
        #expect(try owner.count("SELECT count(*) FROM webhook_backlog") == 0)
        let written = try events(owner)
        #expect(written.filter { $0.type == "message.created" }.map(\.messageID).sorted() == stored)
        #expect(written.filter { $0.type == "note.created" }.map(\.messageID) == [noteID])
        #expect(written.count == 5, "one event per new message of the hooked workspace, none for the others")
        let sent = try deliveries(owner)
        #expect(sent[messages] == stored, "message.created only: no note")
        #expect(sent[everything] == (stored + [noteID]).sorted())
        #expect(sent[notes] == [noteID])
        #expect(sent.count == 3, "nothing to a disabled endpoint, nor to one that asked for other types")

        // The body: the message as the socket shows it, and the session's version after the batch.
        let first = try #require(written.first { $0.messageID == results[0]?.outcome.message?.id })
        #expect(first.body["type"] as? String == "message.created")
        #expect(first.body["workspace_id"] as? String == workspace)
        #expect((first.body["id"] as? String)?.wholeMatch(of: #/evt_[0-9A-HJKMNP-TV-Z]{26}/#) != nil)
        let data = try #require(first.body["data"] as? [String: Any])
        let message = try #require(data["message"] as? [String: Any])
        let row = try #require(results[0]?.outcome.message)
        #expect(message["session_id"] as? String == hooked[0] && message["seq"] as? Int == Int(row.seq))
        #expect(message["client_msg_id"] as? String == "m0" && message["kind"] as? String == "text")
        #expect(message["body"] as? String == row.body && message["created_at"] as? String == row.createdAt)
        let sender = try #require(message["sender"] as? [String: Any])
        #expect(sender["id"] as? String == "v-1" && sender["role"] as? String == "visitor")
        #expect(sender["name"] as? String == "Ann")
        let session = try #require(data["session"] as? [String: Any])
        #expect(session["id"] as? String == hooked[0])
        #expect(session["version"] as? Int == Int(row.session?.version ?? -1))
        #expect(first.body["created_at"] as? String == row.createdAt)

        #expect(try owner.count("SELECT count(*) FROM webhook_events WHERE type LIKE '%.created'") == 5)

        // Resent later, in a batch of its own: a duplicate writes nothing.
        let resent = ResultCollector()
        let again = try startedWriter(WriterConfiguration(databaseURL: db.url, connections: 1), resent)
        defer { again.stop() }
        #expect(again.submit(command(session: hooked[0], clientID: "m0", token: 20)) == .accepted)
        _ = try resent.wait(for: 1)
        try expand(owner)
        #expect(try events(owner).count == 5)
    }

    /// The batch's result counts the messages it left, so that the gateway can wake its expander.
    @Test func theBatchResultCountsWhatItLeftAndAWorkspaceWithoutEndpointsLeavesNothing() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let sessions = try makeSessions(db, count: 2)
        let owner = try db.connect()
        let counts = CountCollector()
        let writer = BatchWriter(
            configuration: WriterConfiguration(databaseURL: db.url, connections: 1), sink: counts.sink)
        writer.start()
        defer { writer.stop() }
        #expect(writer.submit(command(session: sessions[0], clientID: "a", token: 1)) == .accepted)
        #expect(try counts.wait(batches: 1) == [0])
        #expect(try owner.count("SELECT count(*) FROM webhook_backlog") == 0)
        #expect(try owner.count("SELECT count(*) FROM webhook_events") == 0)
        #expect(try owner.count("SELECT count(*) FROM webhook_deliveries") == 0)

        _ = try endpoint(owner, try workspace(of: sessions[0], owner), ["message.created"])
        #expect(writer.submit(command(session: sessions[0], clientID: "b", token: 2)) == .accepted)
        #expect(try counts.wait(batches: 2) == [0, 1])
        #expect(try owner.count("SELECT count(*) FROM webhook_backlog") == 1)
    }

    /// A pass notifies `switchboard_webhooks` (every node's dispatcher) when
    /// it leaves deliveries due, and not when it hands them all over; its
    /// summary row says how many backlog rows it took and whether more wait.
    @Test func aPassNotifiesOnlyWhenItLeavesDeliveriesDue() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let sessions = try makeSessions(db, count: 1)
        let owner = try db.connect()
        _ = try endpoint(owner, try workspace(of: sessions[0], owner), ["message.created"])
        let listener = try db.connect()
        try listener.execute("LISTEN switchboard_webhooks")
        let counts = CountCollector()
        let writer = BatchWriter(
            configuration: WriterConfiguration(databaseURL: db.url, connections: 1), sink: counts.sink)
        writer.start()
        defer { writer.stop() }
        /// A pass handing over at most `handOff`: its summary row's ranges, events and due, its more,
        /// and the notifications heard since.
        func pass(handOff: Int) throws -> (counts: [Int?], more: Bool?, heard: Int) {
            let summary = try owner.query(
                """
                SELECT ranges, events, due, more FROM switchboard_webhook_expand(1000, $1::int, 60, 1000, '{}', '{}')
                 WHERE delivery_id IS NULL
                """, [String(handOff)])
            #expect(summary.rows.count == 1)
            try listener.execute("SELECT 1")
            return (
                [summary.int(0, 0), summary.int(0, 1), summary.int(0, 2)], summary.string(0, 3).map { $0 == "t" },
                listener.notifications().filter { $0.channel == "switchboard_webhooks" }.count
            )
        }

        #expect(writer.submit(command(session: sessions[0], clientID: "a", token: 1)) == .accepted)
        #expect(try counts.wait(batches: 1) == [1])
        let handed = try pass(handOff: 10)
        #expect(handed.counts == [1, 1, 0] && handed.more == false)
        #expect(handed.heard == 0, "all handed over: nobody to wake")

        #expect(writer.submit(command(session: sessions[0], clientID: "b", token: 2)) == .accepted)
        #expect(try counts.wait(batches: 2) == [1, 1])
        let due = try pass(handOff: 0)
        #expect(due.counts == [1, 1, 1] && due.more == false)
        #expect(due.heard == 1, "one delivery left due: one notification")

        let idle = try pass(handOff: 10)
        #expect(idle.counts == [0, 0, 0] && idle.more == false)
        #expect(idle.heard == 0)
    }

    /// A duplicate in the batch sends it down the general path, which names
    /// its new messages as the fast path does: still one event per new message.
    @Test func theGeneralPathWritesTheSameEvents() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let sessions = try makeSessions(db, count: 1)
        let owner = try db.connect()
        let hook = try endpoint(owner, try workspace(of: sessions[0], owner), ["message.created"])
        try owner.query(
            """
            SELECT * FROM switchboard_append_messages(
                ARRAY[$1::uuid], ARRAY['before'], ARRAY['visitor'], ARRAY['v-1'], ARRAY[NULL], ARRAY['text'],
                ARRAY['first'])
            """, [sessions[0]])
        let rows = try owner.query(
            """
            SELECT status, id::text FROM switchboard_append_messages(
                ARRAY[$1::uuid, $1::uuid, $1::uuid, $2::uuid], ARRAY['before', 'new', 'new', 'x'],
                ARRAY['visitor', 'visitor', 'visitor', 'visitor'], ARRAY['v-1', 'v-1', 'v-1', 'v-1'],
                ARRAY[NULL, NULL, NULL, NULL], ARRAY['text', 'text', 'text', 'text'],
                ARRAY['again', 'second', 'second again', 'nowhere'])
            """, [sessions[0], UUID().uuidString])
        #expect(rows.rows.map { $0[0] } == ["duplicate", "stored", "duplicate", "no_session", "webhooks"])
        #expect(rows.string(4, 0) == "webhooks" && rows.string(4, 1) == nil)
        let newID = try #require(rows.string(1, 1))
        #expect(try expand(owner) == (2, 2), "both calls' batches, one new message each")
        #expect(try deliveries(owner)[hook]?.count == 2)
        #expect(try deliveries(owner)[hook]?.contains(newID) == true)
    }

    /// The backlog row takes each session's version from the batch's own
    /// update (migration 38): a session reopened by the batch (bumped twice
    /// in it), a session written on the general path beside a duplicate, and
    /// a batch that stores nothing (its row has no version; no event).
    @Test func eachEventCarriesTheVersionItsBatchReturnedOnEitherPath() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let sessions = try makeSessions(db, count: 2)
        let owner = try db.connect()
        _ = try endpoint(owner, try workspace(of: sessions[0], owner), ["message.created"])
        try owner.query("UPDATE chat_sessions SET status = 'closed' WHERE id = $1::uuid", [sessions[0]])
        /// One call of the writer's function: its stored messages (id, session's version) in order, and its statuses.
        func append(
            _ session: [String], _ clientIDs: [String]
        ) throws -> (
            stored: [(id: String, version: Int)], statuses: [String]
        ) {
            let rows = try owner.query(
                """
                SELECT status, id::text, session_version FROM switchboard_append_messages(
                    $1::uuid[], $2::text[], array_fill('visitor'::text, ARRAY[$3::int]),
                    array_fill('v-1'::text, ARRAY[$3::int]), array_fill(NULL::text, ARRAY[$3::int]),
                    array_fill('text'::text, ARRAY[$3::int]), $2::text[])
                """,
                ["{\(session.joined(separator: ","))}", "{\(clientIDs.joined(separator: ","))}", String(session.count)])
            let stored = try (0..<rows.rowCount).filter { rows.string($0, 0) == "stored" }.map { row in
                (id: try #require(rows.string(row, 1)), version: try #require(rows.int(row, 2)))
            }
            return (stored, rows.rows.map { $0[0] ?? "" })
        }
        /// The version a session has now.
        func version(_ session: String) throws -> Int {
            try #require(try owner.query("SELECT version FROM chat_sessions WHERE id = $1::uuid", [session]).int(0, 0))
        }

        let reopened = try append([sessions[0], sessions[1]], ["r1", "s1"])
        #expect(reopened.statuses == ["stored", "stored", "event", "webhooks"], "the reopen's event, then the count")
        #expect(reopened.stored.map(\.version) == [try version(sessions[0]), try version(sessions[1])])
        #expect(reopened.stored[0].version == 3, "1 when made, the reopen 2, the batch 3")
        let general = try append([sessions[1], sessions[1]], ["s1", "s2"])
        #expect(general.statuses == ["duplicate", "stored", "webhooks"])
        #expect(general.stored.map(\.version) == [try version(sessions[1])])
        let nothing = try append([sessions[0]], ["r1"])
        #expect(nothing.statuses == ["duplicate", "webhooks"])
        #expect(
            try owner.count("SELECT count(*) FROM webhook_backlog WHERE versions = '{}'::jsonb") == 1,
            "a batch that stored nothing still leaves its row, with no version")

        #expect(try expand(owner) == (3, 3))
        let expected = Dictionary(uniqueKeysWithValues: (reopened.stored + general.stored).map { ($0.id, $0.version) })
        #expect(expected.count == 3)
        let written = try events(owner)
        #expect(written.map(\.messageID).sorted() == expected.keys.sorted())
        for event in written {
            let session = (event.body["data"] as? [String: Any])?["session"] as? [String: Any]
            #expect(session?["version"] as? Int == expected[event.messageID], "\(event.messageID)")
        }
    }

    /// The outbox is the transaction's: a batch that rolls back leaves no backlog row, so no event.
    @Test func aRolledBackBatchLeavesNoEvent() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let sessions = try makeSessions(db, count: 1)
        let owner = try db.connect()
        _ = try endpoint(owner, try workspace(of: sessions[0], owner), ["message.created"])
        try owner.execute("BEGIN")
        try owner.query(
            """
            SELECT * FROM switchboard_append_messages(
                ARRAY[$1::uuid], ARRAY['gone'], ARRAY['visitor'], ARRAY['v-1'], ARRAY[NULL], ARRAY['text'],
                ARRAY['never'])
            """, [sessions[0]])
        #expect(try owner.count("SELECT count(*) FROM webhook_backlog") == 1)
        try owner.execute("ROLLBACK")
        #expect(try owner.count("SELECT count(*) FROM webhook_backlog") == 0)
        #expect(try expand(owner) == (0, 0))
        #expect(try owner.count("SELECT count(*) FROM webhook_events WHERE type = 'message.created'") == 0)
        #expect(try owner.count("SELECT count(*) FROM webhook_deliveries") == 0)
    }

    /// Made after the commit, an event still says what its batch left: the
    /// session's version then, though a later batch moved it on before the
    /// expander ran, and the endpoints that wanted it then: one disabled
    /// meanwhile still gets its deliveries (they wait until it is enabled
    /// again, as they would have had the batch written them), one made
    /// meanwhile gets none.
    @Test func anEventMadeLaterCarriesItsBatchsVersionAndEndpoints() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let sessions = try makeSessions(db, count: 1)
        let owner = try db.connect()
        let workspace = try workspace(of: sessions[0], owner)
        let early = try endpoint(owner, workspace, ["message.created"])
        let paused = try endpoint(owner, workspace, ["message.created"])
        var versions: [String: Int] = [:]
        for body in ["one", "two"] {
            let row = try owner.query(
                """
                SELECT id::text, session_version FROM switchboard_append_messages(
                    ARRAY[$1::uuid], ARRAY[$2], ARRAY['visitor'], ARRAY['v-1'], ARRAY[NULL], ARRAY['text'],
                    ARRAY[$2]) WHERE status = 'stored'
                """, [sessions[0], body])
            versions[try #require(row.string(0, 0))] = try #require(row.int(0, 1))
        }
        #expect(Set(versions.values).count == 2, "each batch moved the version on")
        let late = try endpoint(owner, workspace, ["message.created"])
        try owner.query("UPDATE webhook_endpoints SET enabled = false WHERE id = $1::uuid", [paused])
        #expect(try expand(owner) == (2, 2))
        let written = try events(owner)
        #expect(written.count == 2)
        for event in written {
            let session = (event.body["data"] as? [String: Any])?["session"] as? [String: Any]
            #expect(session?["version"] as? Int == versions[event.messageID], "\(event.messageID)")
        }
        let sent = try deliveries(owner)
        #expect(sent[early]?.count == 2)
        #expect(sent[paused]?.count == 2, "disabled after the commit: its deliveries wait for it")
        #expect(sent[late] == nil, "made after the commit: not an endpoint of these messages")
    }
}

extension PostgresConnection {
    fileprivate func count(_ sql: String) throws -> Int { try query(sql).int(0, 0) ?? -1 }
}

/// Each batch's `webhookBacklog`, in order.
final class CountCollector: Sendable {
    private let counts = Mutex<[Int]>([])

    var sink: @Sendable (WriterBatchResult) -> Void {
        { [self] batch in counts.withLock { $0.append(batch.webhookBacklog) } }
    }

    func wait(batches: Int) throws -> [Int] {
        guard waitUntil(timeout: 30, { self.counts.withLock { $0.count } >= batches }) else {
            throw TestFailure("only \(counts.withLock { $0.count }) of \(batches) batches arrived")
        }
        return counts.withLock { $0 }
    }
}
