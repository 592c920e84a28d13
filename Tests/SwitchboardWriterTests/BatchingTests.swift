import Foundation
import SwitchboardTestSupport
import SwitchboardWriter
import Testing

@Suite struct BatchingTests {
    @Test func numbersEachSessionInSubmissionOrder() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let sessions = try makeSessions(db, count: 10)
        let collector = ResultCollector()
        let writer = try startedWriter(WriterConfiguration(databaseURL: db.url), collector)
        defer { writer.stop() }

        let total = 10_000
        for index in 0..<total {
            let outcome = submitRetrying(
                writer, command(session: sessions[index % 10], clientID: "m-\(index)", token: UInt64(index)))
            #expect(outcome == .accepted)
        }
        _ = try collector.wait(for: total)
        let results = try collector.byToken()
        var nextSeq = Array(repeating: Int64(1), count: 10)
        for index in 0..<total {
            let message = try #require(results[UInt64(index)]?.outcome.message)
            #expect(results[UInt64(index)]!.outcome.isStored)
            #expect(message.seq == nextSeq[index % 10], "message \(index)")
            #expect(message.sessionID == sessions[index % 10])
            #expect(message.body == "message \(index)")
            nextSeq[index % 10] += 1
        }
        #expect(try checkGapFree(db).values.sorted() == Array(repeating: 1000, count: 10))

        // Batches never exceed maxBatchMessages, and one sink call carries one batch.
        let statistics = writer.statistics
        #expect(statistics.messagesStored == total)
        let limit = writer.configuration.maxBatchMessages
        #expect(statistics.batchesCommitted >= total / limit)
        #expect(collector.batchSizes.allSatisfy { $0 <= limit })
        #expect(collector.batchSizes.count == statistics.batchesCommitted)
        let bucket = try #require(statistics.batchSize.bounds.firstIndex(of: limit))
        #expect(statistics.batchSize.counts[(bucket + 1)...].allSatisfy { $0 == 0 })
        #expect(statistics.queueDepth == 0)
        #expect(statistics.commitLatencyMicroseconds.count == statistics.batchesCommitted)
    }

    @Test func aLoneMessageWaitsForTheDelayOnly() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let session = try makeSessions(db, count: 1)[0]
        let collector = ResultCollector()
        let delay = 20
        let writer = try startedWriter(
            WriterConfiguration(databaseURL: db.url, maxBatchDelayMilliseconds: delay), collector)
        defer { writer.stop() }

        let submitted = ContinuousClock.now
        #expect(writer.submit(command(session: session, clientID: "alone", token: 1)) == .accepted)
        // Stored without company, in a batch of one: the delay is a deadline, not a wait for more
        // (when it falls due is BatchScheduleTests' business; a failure here is the collector's timeout).
        let results = try collector.wait(for: 1)
        #expect(results.first?.outcome.isStored == true)
        let elapsed = try #require(collector.arrival(of: 1)) - submitted
        #expect(elapsed >= .milliseconds(delay - 1), "flushed before the delay: \(elapsed)")
        #expect(collector.batchSizes == [1])
        #expect(writer.statistics.batchSize.counts[0] == 1)
    }

    /// With a minimum interval, what follows a batch closely waits out the
    /// interval from that batch's send and goes as one batch, though the
    /// connection is idle the whole time.
    @Test func whatFollowsABatchWithinTheIntervalWaitsAndGoesTogether() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let session = try makeSessions(db, count: 1)[0]
        let collector = ResultCollector()
        let interval = 2_000
        let writer = try startedWriter(
            WriterConfiguration(databaseURL: db.url, minBatchIntervalMicroseconds: interval * 1_000, connections: 1),
            collector)
        defer { writer.stop() }

        // The first message finds no batch before it: at once.
        let first = ContinuousClock.now
        #expect(writer.submit(command(session: session, clientID: "first", token: 0)) == .accepted)
        _ = try collector.wait(for: 1)
        let firstStored = try #require(collector.arrival(of: 0)) - first
        #expect(firstStored < .milliseconds(interval), "the first message waited: \(firstStored)")

        for index in 1...20 {
            #expect(writer.submit(command(session: session, clientID: "m-\(index)", token: UInt64(index))) == .accepted)
        }
        let results = try collector.wait(for: 21)
        #expect(results.allSatisfy { $0.outcome.isStored })
        #expect(collector.batchSizes == [1, 20])
        let rest = try #require(collector.arrival(of: 20)) - first
        #expect(rest >= .milliseconds(interval - 1), "sent before the interval was out: \(rest)")
        #expect(try checkGapFree(db)[session] == 21)
    }

    /// The default schedule: a message goes to an idle connection at once;
    /// what arrives while its commit is held up waits, however long, and then
    /// goes as one batch (not one batch per window, pipelined behind it).
    @Test func whatArrivesDuringACommitGoesAsOneBatchWhenItReturns() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let session = try makeSessions(db, count: 1)[0]
        let collector = ResultCollector()
        let writer = try startedWriter(WriterConfiguration(databaseURL: db.url, connections: 1), collector)
        defer { writer.stop() }

        // Another transaction holds the session's row: the first batch blocks in its lock.
        let blocker = try db.connect()
        try blocker.execute("BEGIN")
        try blocker.query("SELECT 1 FROM chat_sessions WHERE id = $1 FOR UPDATE", [session])
        #expect(writer.submit(command(session: session, clientID: "first", token: 0)) == .accepted)
        #expect(waitUntil(timeout: 10) { writer.statistics.batchesInFlight == 1 && writer.statistics.queueDepth == 0 })

        for index in 1...50 {
            #expect(writer.submit(command(session: session, clientID: "m-\(index)", token: UInt64(index))) == .accepted)
        }
        // Far past any batch window: still waiting, and nothing more on the wire.
        Thread.sleep(forTimeInterval: 0.2)
        #expect(writer.statistics.queueDepth == 50)
        #expect(writer.statistics.batchesInFlight == 1)
        #expect(collector.count == 0)

        try blocker.execute("COMMIT")
        let results = try collector.wait(for: 51)
        #expect(results.allSatisfy { $0.outcome.isStored })
        #expect(collector.batchSizes == [1, 50])
        #expect(try checkGapFree(db)[session] == 51)
    }

    @Test func aFullBatchGoesWithoutWaitingForTheDelay() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let session = try makeSessions(db, count: 1)[0]
        let collector = ResultCollector()
        let writer = try startedWriter(
            WriterConfiguration(databaseURL: db.url, maxBatchMessages: 100, maxBatchDelayMilliseconds: 60_000),
            collector)
        defer { writer.stop() }

        for index in 0..<250 {
            #expect(
                writer.submit(command(session: session, clientID: "full-\(index)", token: UInt64(index))) == .accepted)
        }
        // Two full batches go at once; the last 50 wait for company (or the delay).
        // Ten seconds, against a 60 s delay: a timeout here means a full batch waited for the delay.
        _ = try collector.wait(for: 200, timeout: 10)
        #expect(collector.batchSizes == [100, 100])
        Thread.sleep(forTimeInterval: 0.1)
        #expect(collector.count == 200)
        #expect(writer.statistics.queueDepth == 50)

        // stop() answers what still waits.
        writer.stop()
        let results = try collector.wait(for: 250)
        #expect(results.filter { $0.outcome == .unavailable }.count == 50)
        #expect(results.filter { $0.outcome.isStored }.count == 200)
        #expect(writer.submit(command(session: session, clientID: "late", token: 999)) == .unavailable)
    }
}
