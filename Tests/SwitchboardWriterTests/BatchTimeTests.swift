import Foundation
import SwitchboardTestSupport
import SwitchboardWriter
import Testing

/// The batch's own time is formatted once and stands for every timestamp
/// equal to it; the others (a duplicate's original, a session's creation)
/// are formatted one by one. Each must read as the readers print the row.
@Suite struct BatchTimeTests {
    @Test func everyTimestampReadsAsTheStoredRowsWhetherOrNotItIsTheBatchsTime() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let sessions = try makeSessions(db, count: 2)
        let collector = ResultCollector()
        let writer = try batchesOf(4, db, collector)
        defer { writer.stop() }
        // One batch alone first, which the second repeats a message of.
        for (token, client) in ["m1", "p1", "p2", "p3"].enumerated() {
            let session = token == 0 ? sessions[0] : sessions[1]
            #expect(writer.submit(command(session: session, clientID: client, token: UInt64(token))) == .accepted)
        }
        _ = try collector.wait(for: 4)
        usleep(20_000)
        let plan: [(String, String)] = [
            (sessions[0], "m2"), (sessions[0], "m1"), (sessions[1], "n1"), (sessions[1], "n1"),
        ]
        for (index, (session, client)) in plan.enumerated() {
            #expect(writer.submit(command(session: session, clientID: client, token: UInt64(10 + index))) == .accepted)
        }
        _ = try collector.wait(for: 8)
        #expect(collector.batchSizes == [4, 4])
        let results = try collector.byToken()

        let connection = try db.connect()
        let utc = #"to_char(%@ AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')"#
        func stored(_ session: String, _ client: String) throws -> String? {
            try connection.query(
                "SELECT \(utc.replacingOccurrences(of: "%@", with: "created_at")) FROM chats WHERE session_id = $1 AND client_msg_id = $2",
                [session, client]
            ).string(0, 0)
        }
        func sessionTimes(_ session: String) throws -> (created: String?, updated: String?) {
            let row = try connection.query(
                "SELECT \(utc.replacingOccurrences(of: "%@", with: "created_at")), \(utc.replacingOccurrences(of: "%@", with: "updated_at")) FROM chat_sessions WHERE id = $1",
                [session])
            return (row.string(0, 0), row.string(0, 1))
        }
        let first = try #require(results[0]?.outcome.message?.createdAt)
        let m2 = try #require(results[10]?.outcome.message)
        let m1Again = try #require(results[11]?.outcome.message)
        let n1 = try #require(results[12]?.outcome.message)
        let n1Again = try #require(results[13]?.outcome.message)
        #expect(try stored(sessions[0], "m1") == first)
        #expect(try stored(sessions[0], "m2") == m2.createdAt)
        #expect(first < m2.createdAt, "the second batch is 20 ms later")
        #expect(m1Again.createdAt == first, "a duplicate carries its original's time, not the batch's")
        #expect(n1.createdAt == m2.createdAt && n1Again.createdAt == n1.createdAt, "a duplicate within the batch")
        #expect(try stored(sessions[1], "n1") == n1.createdAt)
        // The sessions' state on their last stored rows: created before, updated by the batch.
        let state = try #require(n1.session)
        let times = try sessionTimes(sessions[1])
        #expect(state.createdAt == times.created && state.createdAt < first)
        #expect(state.updatedAt == times.updated && state.updatedAt == n1.createdAt)
        #expect(m2.session?.updatedAt == m2.createdAt)
    }
}
