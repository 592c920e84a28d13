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
        let writer = try startedWriter(
            WriterConfiguration(
                databaseURL: db.url, maxBatchMessages: 4, maxBatchDelayMilliseconds: 1, queueCapacity: 16,
                pipelineDepth: 2), collector)
        defer { writer.stop() }

        let locker = try db.connect()
        try locker.execute("BEGIN; LOCK TABLE chat_sessions IN ACCESS EXCLUSIVE MODE")
        var accepted = 0
        var token: UInt64 = 0
        func fill() -> Duration {
            while true {
                let started = ContinuousClock.now
                let outcome = writer.submit(command(session: session, clientID: "m-\(token)", token: token))
                if outcome == .overloaded { return ContinuousClock.now - started }
                #expect(outcome == .accepted)
                accepted += 1
                token += 1
            }
        }
        _ = fill()
        // The writer takes two batches of four off the queue, which stall in the database.
        #expect(waitUntil(timeout: 10) { writer.statistics.batchesInFlight == 2 })
        let refusal = fill()
        #expect(refusal < .milliseconds(5), "overloaded took \(refusal)")
        #expect(accepted == 16 + 2 * 4)
        let statistics = writer.statistics
        #expect(statistics.queueDepth == 16)
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
