import Foundation
import SwitchboardPostgres
import SwitchboardTestSupport
import Testing

@testable import SwitchboardWriter

/// The writer's two connections against a real server: one carries every
/// session while the load allows it, and a session's messages keep their
/// order when its own connection takes over (`LanePlan`).
@Suite struct LaneOrderTests {
    /// Two connections; full batches of 16, each sending its own from 4
    /// waiting. A delay lets what a test submits together go together,
    /// however soon the writer's thread wakes after the first.
    private func twoLanes(
        _ db: TestDatabase, _ collector: ResultCollector, delayMilliseconds: Int = 0
    ) throws -> BatchWriter {
        try startedWriter(
            WriterConfiguration(
                databaseURL: db.url, maxBatchMessages: 16, maxBatchDelayMilliseconds: delayMilliseconds,
                minBatchIntervalMicroseconds: 0, splitMarkMessages: 4, connections: 2),
            collector)
    }

    /// Sessions whose home is each connection: `[home 0, home 1]`, the first
    /// lower in id order (the function locks a batch's sessions in that order).
    private func sessionsOfEachHome(_ db: TestDatabase) throws -> (String, String) {
        let sessions = try makeSessions(db, count: 40).sorted()
        guard let first = sessions.first(where: { BatchWriter.home(of: $0, among: 2) == 0 }),
            let second = sessions.first(where: { $0 > first && BatchWriter.home(of: $0, among: 2) == 1 })
        else { throw TestFailure("no pair of sessions with homes 0 and 1 among 40") }
        return (first, second)
    }

    /// Another transaction holding `session`'s row lock until it commits.
    private func lockingRow(of session: String, _ db: TestDatabase) throws -> PostgresConnection {
        let locker = try db.connect()
        try locker.execute("BEGIN")
        try locker.query("SELECT 1 FROM chat_sessions WHERE id = $1 FOR UPDATE", [session])
        return locker
    }

    /// One message at a time, to sessions of both homes: every batch goes on the first connection.
    @Test func aTrickleUsesTheFirstConnectionAlone() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let (first, second) = try sessionsOfEachHome(db)
        let collector = ResultCollector()
        let writer = try twoLanes(db, collector)
        defer { writer.stop() }
        for token in UInt64(0)..<20 {
            let session = token % 2 == 0 ? first : second
            #expect(writer.submit(command(session: session, clientID: "t-\(token)", token: token)) == .accepted)
            _ = try collector.wait(for: Int(token) + 1)
        }
        let statistics = writer.statistics
        #expect(statistics.batchesSentOnFirst == 20)
        #expect(statistics.batchesSentOnOthers == 0)
        #expect(try checkGapFree(db) == [first: 10, second: 10])
    }

    /// A batch on the first connection holds a message of the second
    /// connection's session and waits at a row lock. More of that session's
    /// messages arrive, past the split mark: they must not go on the second
    /// connection before that batch commits, or they would be numbered
    /// before the message sent first. Once it commits, they go there.
    @Test func aSessionsMessagesWaitForItsBatchOnTheFirstConnection() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let (first, second) = try sessionsOfEachHome(db)
        let collector = ResultCollector()
        let writer = try twoLanes(db, collector, delayMilliseconds: 100)
        defer { writer.stop() }

        let locker = try lockingRow(of: first, db)
        #expect(writer.submit(command(session: first, clientID: "a-0", token: 0)) == .accepted)
        #expect(writer.submit(command(session: second, clientID: "b-0", token: 1)) == .accepted)
        #expect(waitUntil(timeout: 10) { writer.statistics.batchesInFlight == 1 })
        #expect(writer.statistics.batchesSentOnFirst == 1)
        // A full batch's worth: it wakes the writer's thread while the first batch waits.
        for token in UInt64(2)..<18 {
            #expect(writer.submit(command(session: second, clientID: "b-\(token - 1)", token: token)) == .accepted)
        }
        Thread.sleep(forTimeInterval: 0.4)
        #expect(writer.statistics.batchesSentOnOthers == 0, "the second session's messages overtook its first")
        #expect(collector.count == 0)

        try locker.execute("COMMIT")
        _ = try collector.wait(for: 18)
        #expect(try checkGapFree(db) == [first: 1, second: 17])
        let rows = try storedRows(db)
        for index in 0..<17 {
            #expect(rows["b-\(index)"]?.first?.seq == Int64(index + 1), "b-\(index) out of order")
        }
        #expect(writer.statistics.batchesSentOnOthers >= 1, "past the split mark the second connection sends its own")
    }

    /// The other way round: the second connection's own batch waits at a row
    /// lock (on a session before ours in id order). A message of ours that
    /// arrives then, below the split mark, must not join the first
    /// connection's batch, which would commit before the one sent first.
    @Test func aSessionsMessagesWaitForItsBatchOnItsOwnConnection() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let homeOne = try makeSessions(db, count: 40).sorted().filter { BatchWriter.home(of: $0, among: 2) == 1 }
        guard homeOne.count >= 2 else { throw TestFailure("fewer than two of 40 sessions have home 1") }
        let (locked, ours) = (homeOne[0], homeOne[1])
        let collector = ResultCollector()
        let writer = try twoLanes(db, collector, delayMilliseconds: 100)
        defer { writer.stop() }

        let locker = try lockingRow(of: locked, db)
        // Four at once reach the split mark: they go on their own connection and wait at the lock.
        #expect(writer.submit(command(session: locked, clientID: "l-0", token: 0)) == .accepted)
        for token in UInt64(1)...3 {
            #expect(writer.submit(command(session: ours, clientID: "o-\(token - 1)", token: token)) == .accepted)
        }
        #expect(waitUntil(timeout: 10) { writer.statistics.batchesSentOnOthers == 1 })
        #expect(writer.statistics.batchesSentOnFirst == 0)
        #expect(writer.submit(command(session: ours, clientID: "o-3", token: 4)) == .accepted)
        Thread.sleep(forTimeInterval: 0.4)
        #expect(writer.statistics.batchesSentOnFirst == 0, "our session's message overtook its batch")

        try locker.execute("COMMIT")
        _ = try collector.wait(for: 5)
        #expect(try checkGapFree(db) == [locked: 1, ours: 4])
        let rows = try storedRows(db)
        for index in 0..<4 {
            #expect(rows["o-\(index)"]?.first?.seq == Int64(index + 1), "o-\(index) out of order")
        }
    }
}
