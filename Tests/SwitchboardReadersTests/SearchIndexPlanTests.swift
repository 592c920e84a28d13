import Foundation
import SwitchboardPostgres
import Testing

@testable import SwitchboardReaders

/// The search indexer's pass keeps one plan for the life of its connection
/// (migration 25), so that plan must read a backlog range by the key however
/// small `chats` was when it was made (migration 31).
@Suite struct SearchIndexPlanTests {
    /// Sequential scans of `table` so far, once both connections' statistics are flushed.
    private func sequentialScans(_ fixture: ReadersFixture, of table: String = "chats") throws -> Int {
        _ = try fixture.queries.run("SELECT pg_stat_force_next_flush()", [], retryable: true)
        try fixture.admin.query("SELECT pg_stat_force_next_flush()")
        let result = try fixture.admin.query(
            "SELECT seq_scan::text FROM pg_stat_user_tables WHERE relname = $1", [table])
        return Int(result.string(0, 0) ?? "") ?? -1
    }

    @Test func aPassPlannedOnAFewMessagesReadsItsRangeByKeyAmongThousands() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        try fixture.admin.execute(
            """
            SET stats_fetch_consistency = none;
            ALTER TABLE chats SET (autovacuum_enabled = false);
            ALTER TABLE message_search SET (autovacuum_enabled = false);
            """)
        let session = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        // The pass's plan is made while the table holds a few messages, on the indexer's connection, with
        // statistics that say so (autovacuum analyzes a new deployment's small tables early).
        try fixture.admin.execute("ANALYZE chats, message_search")
        for index in 0..<8 {
            try fixture.append(session: session.id, body: "message \(index)")
            #expect(try fixture.indexSearch() == 1)
        }
        try fixture.admin.query(
            """
            SELECT count(*) FROM switchboard_append_messages(
                array_fill($1::uuid, ARRAY[20000]), ARRAY(SELECT gen_random_uuid()::text FROM generate_series(1, 20000)),
                array_fill('visitor'::text, ARRAY[20000]), array_fill('v-1'::text, ARRAY[20000]),
                array_fill(NULL::text, ARRAY[20000]), array_fill('text'::text, ARRAY[20000]),
                ARRAY(SELECT 'word ' || g FROM generate_series(1, 20000) g), array_fill(NULL::text, ARRAY[20000]))
            """, [session.id])
        #expect(try fixture.indexSearch() == 20000)

        try fixture.append(session: session.id, body: "one more")
        let before = try sequentialScans(fixture)
        // The probe of the range in the index (migration 42), planned when it held a few vectors, too.
        let indexBefore = try sequentialScans(fixture, of: "message_search")
        #expect(try fixture.indexSearch() == 1)
        #expect(try sequentialScans(fixture) == before, "the pass scanned all of chats for one message")
        #expect(
            try sequentialScans(fixture, of: "message_search") == indexBefore,
            "the pass scanned all of message_search for one range")
        #expect(
            try fixture.admin.query("SELECT count(*)::text FROM message_search WHERE vector @@ 'more'::tsquery")
                .string(0, 0) == "1")
    }
}
