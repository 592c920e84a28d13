import Foundation
import SwitchboardChat
import SwitchboardReaders
import Testing

/// Full-text search over a real PostgreSQL (migration 20's vectors, written by
/// the indexer's passes after the commits): scoped to
/// the workspace, newest first, keyset-paged, snippets marking the matched
/// words, notes for staff only, a visitor's search inside its own sessions.
@Suite struct SearchQueryTests {
    @Test func findsOneWordAmongAHundredThousandMessagesAndNothingOfAnotherWorkspace() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let other = UUID().uuidString.lowercased()
        try fixture.admin.query(
            "INSERT INTO workspaces (id, name) VALUES ($1::uuid, 'w'), ($2::uuid, 'other')",
            [fixture.workspaceID, other])
        // 100 sessions of 1,000 messages each, from a vocabulary without the words searched below.
        try fixture.admin.query(
            """
            WITH sessions AS (
                INSERT INTO chat_sessions (workspace_id, user_id, title, last_seq)
                SELECT $1::uuid, 'v-' || n, 'Session ' || n, 1000 FROM generate_series(1, 100) n
                RETURNING id)
            INSERT INTO chats (workspace_id, session_id, seq, client_msg_id, role, sender_id, content, created_at)
            SELECT $1::uuid, s.id, m, 'c' || m, 'visitor', 'v', 
                   (ARRAY['where','is','my','parcel','please','help','thanks','order','delivery','late'])[1 + m % 10]
                   || ' ' || (ARRAY['today','box','shoes','size','return','label','again','hello'])[1 + m % 8]
                   || ' ' || m || CASE WHEN m % 300 = 0 THEN ' crushed' ELSE '' END,
                   now() - interval '1 day' + m * interval '1 millisecond'
              FROM sessions s, generate_series(1, 1000) m
            """, [fixture.workspaceID])
        #expect(try fixture.admin.query("SELECT count(*) FROM chats").int(0, 0) == 100_000)
        // Rows written around the writer, like a legacy table's: one backlog range over every id.
        try fixture.admin.query(
            """
            INSERT INTO search_backlog (after_id, last_id)
            VALUES ('00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff')
            """)
        let ours = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-9", title: nil)
        let theirs = try fixture.queries.createSession(workspaceID: other, visitorID: "v-9", title: nil)
        try fixture.append(session: ours.id, body: "The box for order #4411 arrived crushed")
        try fixture.append(session: theirs.id, body: "order #4411 of the other shop")
        // In chunks of 7,000: the range over every id is walked in 15 passes, then deleted.
        #expect(try fixture.indexSearch(chunk: 7_000) == 100_002)
        #expect(try fixture.queries.searchBacklogRanges() == 0)
        try fixture.admin.query("ANALYZE chats, message_search")

        let page = try fixture.queries.search(
            workspaceID: fixture.workspaceID, query: "#4411 crushed", scope: .staff, limit: 20, cursor: nil)
        #expect(page.hits.map(\.sessionID) == [ours.id] && page.nextCursor == nil)
        let hit = try #require(page.hits.first)
        #expect(hit.seq == 1 && hit.kind == "text" && hit.sender.id == "v-1" && hit.sessionStatus == "open")
        #expect(hit.snippet.filter(\.matched).map(\.text) == ["4411", "crushed"])
        #expect(hit.snippet.map(\.text).joined() == "The box for order #4411 arrived crushed")
        let theirPage = try fixture.queries.search(
            workspaceID: other, query: "4411", scope: .staff, limit: 20, cursor: nil)
        #expect(theirPage.hits.map(\.sessionID) == [theirs.id])
        // A word no message has, and a query of no words at all.
        #expect(
            try fixture.queries.search(
                workspaceID: fixture.workspaceID, query: "refund", scope: .staff, limit: 20, cursor: nil
            ).hits.isEmpty)
        #expect(
            try fixture.queries.search(
                workspaceID: fixture.workspaceID, query: "!!! ???", scope: .staff, limit: 20, cursor: nil
            ).hits.isEmpty)
        // Both ways to a page, against the truth: "parcel" (a tenth of the messages) fills pages from the newest
        // messages walked; "crushed" (300 old ones, none among the newest thousand) comes from the GIN index.
        for (word, pattern) in [("parcel", "parcel %"), ("crushed", "% crushed")] {
            let truth = try fixture.admin.query(
                """
                SELECT id::text FROM chats WHERE workspace_id = $1::uuid AND content LIKE $2
                 ORDER BY created_at DESC, id DESC LIMIT 120
                """, [fixture.workspaceID, pattern])
            var found: [String] = []
            var cursor: String?
            repeat {
                let page = try fixture.queries.search(
                    workspaceID: fixture.workspaceID, query: word, scope: .staff, limit: 40, cursor: cursor)
                found += page.hits.map(\.id)
                cursor = page.nextCursor
            } while cursor != nil && found.count < 120
            #expect(found == (0..<truth.rowCount).map { truth.string($0, 0) ?? "" }, "\(word)")
        }
        // The index, not a scan of every message, answers.
        let plan = try fixture.admin.query(
            """
            EXPLAIN SELECT 1 FROM message_search m
             WHERE m.vector @@ websearch_to_tsquery('simple'::regconfig, '4411')
            """)
        let planText = (0..<plan.rowCount).map { plan.string($0, 0) ?? "" }.joined(separator: "\n")
        #expect(planText.contains("idx_message_search_vector"), "\(planText)")
    }

    @Test func pagesNewestFirstWithoutRepeatsAndSkipsEventsAndDeletedSessions() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let first = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        let second = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-2", title: nil)
        let gone = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-3", title: nil)
        for index in 0..<45 {
            try fixture.append(session: index % 2 == 0 ? first.id : second.id, body: "refund number \(index)")
        }
        try fixture.append(session: first.id, kind: "event", body: "Ken promised a refund")
        try fixture.append(session: gone.id, body: "refund in a deleted conversation")
        try fixture.admin.query("UPDATE chat_sessions SET deleted_at = now() WHERE id = $1::uuid", [gone.id])
        // Indexed: 45 + 1 (the event is skipped).
        #expect(try fixture.indexSearch() == 46)

        var seen: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            let page = try fixture.queries.search(
                workspaceID: fixture.workspaceID, query: "refund", scope: .staff, limit: 20, cursor: cursor)
            seen += page.hits.map { $0.snippet.map(\.text).joined() }
            cursor = page.nextCursor
            pages += 1
        } while cursor != nil && pages < 10
        #expect(pages == 3)
        #expect(seen == (0..<45).reversed().map { "refund number \($0)" })
        #expect(throws: QueryError.invalidCursor) {
            try fixture.queries.search(
                workspaceID: fixture.workspaceID, query: "refund", scope: .staff, limit: 20, cursor: "nope")
        }
    }

    @Test func aVisitorFindsItsOwnConversationsWithoutNotesStaffFindNotes() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let mine = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        let someoneElses = try fixture.queries.createSession(
            workspaceID: fixture.workspaceID, visitorID: "v-2", title: nil)
        try fixture.append(session: mine.id, body: "my parcel is late")
        try fixture.append(
            session: mine.id, role: "operator", senderID: "op-ken", kind: "note", body: "parcel lost, refund her")
        try fixture.append(session: someoneElses.id, senderID: "v-2", body: "another parcel question")
        try fixture.indexSearch()

        let visitor = try fixture.queries.search(
            workspaceID: fixture.workspaceID, query: "parcel", scope: .visitor(id: "v-1"), limit: 20, cursor: nil)
        #expect(visitor.hits.map { $0.snippet.map(\.text).joined() } == ["my parcel is late"])
        let staff = try fixture.queries.search(
            workspaceID: fixture.workspaceID, query: "parcel", scope: .staff, limit: 20, cursor: nil)
        #expect(staff.hits.map(\.kind).sorted() == ["note", "text", "text"])
        // A snippet's marks come from the query alone: a body holding the private-use marks forges none.
        try fixture.append(session: mine.id, body: "\u{E000}fake\u{E001} parcel <img src=x onerror=alert(1)>")
        try fixture.indexSearch()
        let marked = try fixture.queries.search(
            workspaceID: fixture.workspaceID, query: "parcel", scope: .visitor(id: "v-1"), limit: 1, cursor: nil)
        let parts = try #require(marked.hits.first?.snippet)
        #expect(parts.filter(\.matched).map(\.text) == ["parcel"])
        #expect(parts.map(\.text).joined() == "fake parcel <img src=x onerror=alert(1)>")
    }
}

/// The backlog that makes a committed message searchable (migration 20):
/// the writer's batch leaves its id range in its own transaction, the
/// indexer's pass turns it into vectors and deletes it in one.
@Suite struct SearchBacklogTests {
    @Test func everyCommittedMessageIsIndexedOnceAndARolledBackBatchLeavesNothing() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let session = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        try fixture.append(session: session.id, clientID: "a", body: "first parcel")
        // A batch of three: one repeats "a" (the general path: a duplicate has no row), one is a note.
        let batch = try fixture.admin.query(
            """
            SELECT status FROM switchboard_append_messages(
                ARRAY[$1::uuid, $1::uuid, $1::uuid], ARRAY['a', 'b', 'c'], ARRAY['visitor', 'visitor', 'operator'],
                ARRAY['v-1', 'v-1', 'op'], ARRAY[NULL, NULL, NULL]::text[], ARRAY['text', 'text', 'note'],
                ARRAY['first parcel', 'second parcel', 'a note on the parcel'], NULL)
            """, [session.id])
        #expect((0..<batch.rowCount).map { batch.string($0, 0) } == ["duplicate", "stored", "stored"])
        #expect(try fixture.queries.searchBacklogRanges() == 2)
        // Rolled back: neither its messages nor its backlog row.
        try fixture.admin.query("BEGIN")
        try fixture.append(session: session.id, clientID: "d", body: "rolled back parcel")
        try fixture.admin.query("ROLLBACK")
        #expect(try fixture.queries.searchBacklogRanges() == 2)
        // Not searchable before a pass, then each message once.
        #expect(
            try fixture.queries.search(
                workspaceID: fixture.workspaceID, query: "parcel", scope: .staff, limit: 20, cursor: nil
            ).hits.isEmpty)
        #expect(try fixture.indexSearch() == 3)
        #expect(try fixture.queries.searchBacklogRanges() == 0)
        #expect(try fixture.indexSearch() == 0)
        let rows = try fixture.admin.query(
            """
            SELECT count(*), count(DISTINCT m.chat_id), count(*) FILTER (WHERE m.kind = 'note'),
                   bool_and(m.vector = to_tsvector('simple', c.content) AND m.session_id = c.session_id
                            AND m.workspace_id = c.workspace_id AND m.created_at = c.created_at)
              FROM message_search m JOIN chats c ON c.id = m.chat_id
            """)
        #expect(rows.string(0, 0) == "3" && rows.string(0, 1) == "3" && rows.string(0, 2) == "1")
        #expect(rows.string(0, 3) == "t")
        let found = try fixture.queries.search(
            workspaceID: fixture.workspaceID, query: "parcel", scope: .staff, limit: 20, cursor: nil)
        #expect(found.hits.map(\.seq) == [3, 2, 1])
    }

    @Test func rangesThatFitTheBudgetGoInOnePassAndTheNextIsCutWhereTheBudgetEnds() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let session = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        // Four batches of three messages: four ranges of three ids each.
        for batch in 0..<4 {
            let ids = (0..<3).map { "b\(batch)-\($0)" }
            let stored = try fixture.admin.query(
                """
                SELECT status FROM switchboard_append_messages(
                    ARRAY[$1::uuid, $1::uuid, $1::uuid], ARRAY[$2, $3, $4], ARRAY['visitor', 'visitor', 'visitor'],
                    ARRAY['v-1', 'v-1', 'v-1'], ARRAY[NULL, NULL, NULL]::text[], ARRAY['text', 'text', 'text'],
                    ARRAY['parcel one', 'parcel two', 'parcel three'], NULL)
                """, [session.id] + ids)
            #expect((0..<stored.rowCount).allSatisfy { stored.string($0, 0) == "stored" })
        }
        #expect(try fixture.queries.searchBacklogRanges() == 4)
        // A budget of 7: two whole ranges (6), then one message of the third.
        let first = try fixture.queries.indexSearchBacklog(budget: 7)
        #expect(first.ranges == 3 && first.indexed == 7 && first.more)
        #expect(try fixture.queries.searchBacklogRanges() == 2)
        // The rest of the third (2) and the fourth (3) fit: the backlog is empty and says so.
        let second = try fixture.queries.indexSearchBacklog(budget: 7)
        #expect(second.ranges == 2 && second.indexed == 5 && !second.more)
        #expect(try fixture.queries.searchBacklogRanges() == 0)
        let rows = try fixture.admin.query("SELECT count(*), count(DISTINCT chat_id) FROM message_search")
        #expect(rows.string(0, 0) == "12" && rows.string(0, 1) == "12")
        #expect(
            try fixture.queries.search(
                workspaceID: fixture.workspaceID, query: "parcel", scope: .staff, limit: 20, cursor: nil
            ).hits.count == 12)
    }

    /// A range is inserted plainly only when none of it is indexed (migration
    /// 42); one that holds an indexed message takes the conflict path, which
    /// keeps that row and indexes the rest, once each, without an error.
    @Test func aRangeWithAMessageIndexedAlreadyIndexesTheRestOnce() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let session = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        for batch in 0..<2 {
            let stored = try fixture.admin.query(
                """
                SELECT status FROM switchboard_append_messages(
                    ARRAY[$1::uuid, $1::uuid, $1::uuid], ARRAY[$2 || '-0', $2 || '-1', $2 || '-2'],
                    ARRAY['visitor', 'visitor', 'visitor'], ARRAY['v-1', 'v-1', 'v-1'], ARRAY[NULL, NULL, NULL]::text[],
                    ARRAY['text', 'text', 'text'], ARRAY['parcel one', 'parcel two', 'parcel three'], NULL)
                """, [session.id, "b\(batch)"])
            #expect((0..<stored.rowCount).allSatisfy { stored.string($0, 0) == "stored" })
        }
        // The first range's middle message is in the index already, with a vector of its own.
        try fixture.admin.execute(
            """
            INSERT INTO message_search (chat_id, workspace_id, session_id, kind, created_at, vector)
            SELECT c.id, c.workspace_id, c.session_id, c.kind, c.created_at, 'kept'::tsvector
              FROM chats c WHERE c.client_msg_id = 'b0-1'
            """)
        let pass = try fixture.queries.indexSearchBacklog()
        #expect(pass.ranges == 2 && pass.indexed == 5 && !pass.more)
        #expect(try fixture.queries.searchBacklogRanges() == 0)
        let rows = try fixture.admin.query(
            """
            SELECT count(*), count(DISTINCT m.chat_id), count(*) FILTER (WHERE m.vector = 'kept'::tsvector),
                   bool_and(m.vector = to_tsvector('simple', c.content) OR c.client_msg_id = 'b0-1')
              FROM message_search m JOIN chats c ON c.id = m.chat_id
            """)
        #expect(rows.string(0, 0) == "6" && rows.string(0, 1) == "6" && rows.string(0, 2) == "1")
        #expect(rows.string(0, 3) == "t")
    }

    @Test func aBacklogRowLockedByAnotherIndexerIsLeftToIt() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let session = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        try fixture.append(session: session.id, body: "one")
        try fixture.append(session: session.id, body: "two")
        // Another node's indexer holds the first range.
        let other = try fixture.database.connect()
        try other.query("BEGIN")
        try other.query("SELECT id FROM search_backlog ORDER BY id LIMIT 1 FOR UPDATE")
        let pass = try fixture.queries.indexSearchBacklog()
        #expect(pass.ranges == 1 && pass.indexed == 1)
        #expect(try fixture.queries.searchBacklogRanges() == 1)
        try other.query("ROLLBACK")
        #expect(try fixture.indexSearch() == 1)
        #expect(try fixture.admin.query("SELECT count(*) FROM message_search").string(0, 0) == "2")
    }
}
