import Foundation
import SwitchboardPostgres
import SwitchboardTestSupport
import Testing

@testable import SwitchboardWriter

/// Two shards' partial batches take turns at committing (`CommitTurns`), on
/// a real server: one shard's batch is held at a session's row lock (another
/// transaction holds it), and the other shard's batch waits for that commit,
/// for the turn limit at most, unless it is full.
@Suite struct CommitTurnTests {
    private struct Fixture {
        let db: TestDatabase
        /// A session of shard 0 (held at its lock) and one of shard 1.
        let held: String
        let other: String
        /// The transaction holding `held`'s row lock.
        let locker: PostgresConnection

        init() throws {
            db = try TestDatabase(migrated: true)
            let sessions = try makeSessions(db, count: 16)
            guard let held = sessions.first(where: { BatchWriter.shard(of: $0, among: 2) == 0 }),
                let other = sessions.first(where: { BatchWriter.shard(of: $0, among: 2) == 1 })
            else { throw TestFailure("16 sessions all hashed to one shard") }
            self.held = held
            self.other = other
            locker = try db.connect()
            try locker.execute("BEGIN")
            _ = try locker.query("SELECT 1 FROM chat_sessions WHERE id = $1 FOR UPDATE", [held])
        }

        /// Starts a writer of two shards, sends one message of `held` and
        /// waits until its batch waits on the lock (it holds the turn).
        func writerHeldAtTheLock(
            _ collector: ResultCollector, turnWaitLimitMicroseconds: Int, maxBatchMessages: Int = 1024
        ) throws -> BatchWriter {
            let writer = try startedWriter(
                WriterConfiguration(
                    databaseURL: db.url, maxBatchMessages: maxBatchMessages,
                    turnWaitLimitMicroseconds: turnWaitLimitMicroseconds, connections: 2), collector)
            #expect(writer.submit(command(session: held, clientID: "held", token: 0)) == .accepted)
            let probe = try db.connect()
            let waiting = waitUntil(timeout: 10) {
                let result = try? probe.query(
                    """
                    SELECT count(*) FROM pg_stat_activity
                     WHERE application_name = 'switchboard-writer' AND wait_event_type = 'Lock'
                       AND datname = current_database()
                    """)
                return result?.int(0, 0) == 1
            }
            guard waiting else { throw TestFailure("the held session's batch never waited on its lock") }
            return writer
        }

        func releaseLock() throws { try locker.execute("COMMIT") }
    }

    @Test func aPartialBatchWaitsForTheOtherShardsCommit() throws {
        let fixture = try Fixture()
        defer { fixture.db.drop() }
        let collector = ResultCollector()
        let writer = try fixture.writerHeldAtTheLock(collector, turnWaitLimitMicroseconds: 5_000_000)
        defer { writer.stop() }

        #expect(writer.submit(command(session: fixture.other, clientID: "other", token: 1)) == .accepted)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(collector.count == 0, "the other shard's batch went while the first held the turn")

        try fixture.releaseLock()
        let results = try collector.wait(for: 2)
        #expect(results.allSatisfy { $0.outcome.isStored })
        #expect(results.map(\.token) == [0, 1], "the waiting batch goes after the commit it waited for")
        #expect(writer.statistics.turnWaitsEndedByCommit == 1 && writer.statistics.turnWaitsEndedByLimit == 0)
    }

    @Test func aCommitStuckPastTheLimitNoLongerHoldsTheOtherShardBack() throws {
        let fixture = try Fixture()
        defer { fixture.db.drop() }
        let collector = ResultCollector()
        let writer = try fixture.writerHeldAtTheLock(collector, turnWaitLimitMicroseconds: 50_000)
        defer { writer.stop() }

        #expect(writer.submit(command(session: fixture.other, clientID: "other", token: 1)) == .accepted)
        let first = try collector.wait(for: 1, timeout: 10)
        #expect(first.map(\.token) == [1] && first[0].outcome.isStored)
        #expect(writer.statistics.turnWaitsEndedByLimit == 1 && writer.statistics.turnWaitsEndedByCommit == 0)

        try fixture.releaseLock()
        let results = try collector.wait(for: 2)
        #expect(results.allSatisfy { $0.outcome.isStored })
    }

    @Test func aFullBatchNeverWaitsForTheTurn() throws {
        let fixture = try Fixture()
        defer { fixture.db.drop() }
        let collector = ResultCollector()
        let writer = try fixture.writerHeldAtTheLock(
            collector, turnWaitLimitMicroseconds: 5_000_000, maxBatchMessages: 4)
        defer { writer.stop() }

        for index in 1...4 {
            let message = command(session: fixture.other, clientID: "other-\(index)", token: UInt64(index))
            #expect(writer.submit(message) == .accepted)
        }
        let full = try collector.wait(for: 4, timeout: 10)
        #expect(Set(full.map(\.token)) == [1, 2, 3, 4] && full.allSatisfy { $0.outcome.isStored })

        try fixture.releaseLock()
        _ = try collector.wait(for: 5)
    }
}
