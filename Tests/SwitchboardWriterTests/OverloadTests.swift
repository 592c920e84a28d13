import Foundation
import SwitchboardTestSupport
import SwitchboardWriter
import Testing

@Suite struct OverloadTests {
    /// With the database stalled, a full queue refuses at once, and
    /// everything accepted is stored once the stall ends.
    @Test func aFullQueueRefusesAtOnceAndDrainsLater() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let session = try makeSessions(db, count: 1)[0]
        let collector = ResultCollector()
        // Batches go only full, whatever the filling thread's pace: with a delay of 1 ms a
        // machine that paused the filler sent the first batch with one command, so the two
        // stalled batches held 5 and the count below was 21 (CI, 2026-11-27, under CPU steal).
        let writer = try startedWriter(
            WriterConfiguration(
                databaseURL: db.url, maxBatchMessages: 4, maxBatchDelayMilliseconds: 60_000, queueCapacity: 16,
                pipelineDepth: 2), collector)
        defer { writer.stop() }

        let locker = try db.connect()
        try locker.execute("BEGIN; LOCK TABLE chat_sessions IN ACCESS EXCLUSIVE MODE")
        let counts = FillCounts()
        @Sendable func fill() {
            while true {
                let outcome = writer.submit(
                    command(session: session, clientID: "m-\(counts.token)", token: counts.token))
                if outcome == .overloaded { return }
                #expect(outcome == .accepted)
                counts.accepted += 1
                counts.token += 1
            }
        }
        fill()
        // The writer takes two batches of four off the queue, which stall in the database.
        #expect(waitUntil(timeout: 10) { writer.statistics.batchesInFlight == 2 })
        // Refused while the database is still locked: submit never waits for it (a submit
        // that waited could not return before the COMMIT below).
        let refused = Flag()
        Thread {
            fill()
            refused.set()
        }.start()
        guard waitUntil(timeout: 10, { refused.isSet }) else {
            Issue.record("submit waited for the database instead of refusing")
            try locker.execute("COMMIT")
            return
        }
        // One queue holds `queueCapacity` for each of the writer's connections (two by default).
        let capacity = 16 * writer.configuration.connections
        let accepted = counts.accepted
        #expect(accepted == capacity + 2 * 4)
        let statistics = writer.statistics
        #expect(statistics.queueDepth == capacity)
        #expect(statistics.overloaded == 2)
        Thread.sleep(forTimeInterval: 0.05)
        #expect(collector.count == 0)

        try locker.execute("COMMIT")
        let results = try collector.wait(for: accepted)
        #expect(results.count == accepted)
        #expect(results.allSatisfy { $0.outcome.isStored })
        #expect(try checkGapFree(db) == [session: accepted])
        #expect(writer.statistics.queueDepth == 0)
    }
}

/// What the filling thread counted; read by the test only after it signalled.
private final class FillCounts: @unchecked Sendable {
    var accepted = 0
    var token: UInt64 = 0
}
