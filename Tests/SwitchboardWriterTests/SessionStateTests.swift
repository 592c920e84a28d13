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
        let writer = try batchesOf(5, db, collector)
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

    /// Migration 26: the writer sets `updated_at` itself and the trigger
    /// skips its rows; every other update still gets the trigger's time.
    @Test func aBatchStampsUpdatedAtAndOtherUpdatesStillGetTheTriggersTime() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let session = try makeSessions(db, count: 1)[0]
        let connection = try db.connect()
        let utc = #"to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')"#
        func updatedAt() throws -> String {
            try #require(try connection.query("SELECT \(utc) FROM chat_sessions WHERE id = $1", [session]).string(0, 0))
        }
        let created = try updatedAt()
        let collector = ResultCollector()
        let writer = try startedWriter(WriterConfiguration(databaseURL: db.url, connections: 1), collector)
        defer { writer.stop() }
        usleep(5_000)
        #expect(writer.submit(command(session: session, clientID: "m1", token: 0)) == .accepted)
        let reported = try #require(try collector.wait(for: 1).first?.outcome.message?.session)
        let stamped = try updatedAt()
        #expect(stamped > created && reported.updatedAt == stamped, "the batch's time, as reported")
        usleep(5_000)
        _ = try connection.query("UPDATE chat_sessions SET title = 'Renamed' WHERE id = $1", [session])
        #expect(try updatedAt() > stamped, "an update that leaves updated_at alone gets the trigger's time")
        _ = try connection.query(
            "UPDATE chat_sessions SET title = 'Again', updated_at = updated_at WHERE id = $1", [session])
        #expect(try updatedAt() > stamped, "naming the column without changing it is leaving it alone")
    }
}
