import Foundation
import SwitchboardTestSupport
import SwitchboardWriter
import Testing

/// A batch reports each session's state after it on the session's last stored
/// message, with its version grown once per batch.
@Suite struct SessionStateTests {
    @Test func theLastStoredMessageOfEachSessionCarriesItsNewState() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let sessions = try makeSessions(db, count: 2)
        let collector = ResultCollector()
        // One shard: with two, the sessions may hash to different shards, and neither fills its batch.
        let writer = try startedWriter(
            WriterConfiguration(
                databaseURL: db.url, maxBatchMessages: 5, maxBatchDelayMilliseconds: 60_000, connections: 1),
            collector)
        defer { writer.stop() }
        let plan: [(String, String)] = [
            (sessions[0], "a1"), (sessions[1], "b1"), (sessions[0], "a2"), (sessions[0], "a1"), (sessions[0], "a3"),
        ]
        for (token, (session, client)) in plan.enumerated() {
            #expect(writer.submit(command(session: session, clientID: client, token: UInt64(token))) == .accepted)
        }
        _ = try collector.wait(for: plan.count)
        #expect(collector.batchSizes == [plan.count])
        let results = try collector.byToken()
        let states = (0..<plan.count).map { results[UInt64($0)]?.outcome.message?.session }
        // Tokens 0 and 2 are earlier messages of session 0, 3 a duplicate: no state.
        #expect(states[0] == nil && states[2] == nil && states[3] == nil)
        let first = try #require(states[4])
        let second = try #require(states[1])
        #expect(first.version == 2 && second.version == 2, "once per batch, from 1")
        #expect(first.status == "open" && first.title == "New chat" && first.visitorID == "v-0")
        #expect(second.visitorID == "v-1")
        #expect(first.workspaceID == second.workspaceID && !first.workspaceID.isEmpty)
        #expect(!first.createdAt.isEmpty && first.updatedAt >= first.createdAt)
        // Visitors' messages on open, unassigned sessions: both now wait (migration 9), since their first.
        #expect(first.waitingSince.map { $0 >= first.createdAt && $0 <= first.updatedAt } == true)
        #expect(second.waitingSince != nil && first.contact == nil)
    }
}
