import Foundation
import SwitchboardTestSupport
import SwitchboardWriter
import Synchronization
import Testing

@Suite struct ConnectionLossTests {
    /// The writer's backend is terminated while messages flow: nothing
    /// reported stored is missing, every accepted command gets exactly one
    /// result, the writer reconnects by itself, and retrying what was not
    /// stored (same client_msg_id) leaves exactly one row each.
    @Test func losingTheBackendMidRunLosesNothingAcknowledged() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let sessions = try makeSessions(db, count: 20)
        let collector = ResultCollector()
        let writer = try startedWriter(
            WriterConfiguration(
                databaseURL: db.url, maxBatchMessages: 64, maxBatchDelayMilliseconds: 1,
                reconnectBackoffMinimumMilliseconds: 20), collector)
        defer { writer.stop() }

        let total = 20_000
        let refused = Mutex<[Int]>([])
        let accepted = Atomic<Int>(0)
        let producer = Thread {
            for index in 0..<total {
                let outcome = submitRetrying(
                    writer, command(session: sessions[index % 20], clientID: "m-\(index)", token: UInt64(index)))
                if outcome == .accepted {
                    accepted.add(1, ordering: .relaxed)
                } else {
                    refused.withLock { $0.append(index) }
                }
                // About 20,000 messages/s: the loss lands while batches are in flight.
                if index % 20 == 0 { Thread.sleep(forTimeInterval: 0.001) }
            }
        }
        producer.start()
        #expect(waitUntil(timeout: 60) { collector.count >= 3_000 })
        // Every connection of the writer at once (one per shard).
        #expect(try terminateWriterBackends(db) == writer.configuration.connections)
        #expect(waitUntil(timeout: 60) { producer.isFinished })
        #expect(waitUntil(timeout: 30) { writer.isConnected })
        _ = try collector.wait(for: accepted.load(ordering: .relaxed))
        let results = try collector.byToken()
        #expect(results.count == accepted.load(ordering: .relaxed))
        #expect(writer.statistics.reconnects >= 1)

        // Nothing acknowledged is missing, and it is where the ack said.
        var rows = try storedRows(db)
        for (token, result) in results where result.outcome.isStored {
            let message = result.outcome.message!
            #expect(rows["m-\(token)"] == [StoredRow(id: message.id, sessionID: message.sessionID, seq: message.seq)])
        }
        let unavailable = results.filter { $0.value.outcome == .unavailable }.map { Int($0.key) }
        #expect(results.values.allSatisfy { $0.outcome.isStored || $0.outcome == .unavailable })

        // The client's retry: everything not acknowledged, same client_msg_id.
        let retries = unavailable + refused.withLock { $0 }
        #expect(!retries.isEmpty, "the loss went unnoticed: nothing was unavailable")
        let retryCollector = ResultCollector()
        let retryWriter = try startedWriter(WriterConfiguration(databaseURL: db.url), retryCollector)
        defer { retryWriter.stop() }
        for index in retries {
            #expect(
                submitRetrying(
                    retryWriter, command(session: sessions[index % 20], clientID: "m-\(index)", token: UInt64(index)))
                    == .accepted)
        }
        _ = try retryCollector.wait(for: retries.count)
        #expect(retryCollector.results.allSatisfy { $0.outcome.isStored || $0.outcome.isDuplicate })

        // The writer that lost its connection works again, too.
        #expect(writer.submit(command(session: sessions[0], clientID: "after", token: 1_000_000)) == .accepted)
        _ = try collector.wait(for: accepted.load(ordering: .relaxed) + 1)
        #expect(try collector.byToken()[1_000_000]?.outcome.isStored == true)

        rows = try storedRows(db)
        for index in 0..<total { #expect(rows["m-\(index)"]?.count == 1, "m-\(index)") }
        #expect(try checkGapFree(db).values.reduce(0, +) == total + 1)
    }

    /// Batches stuck in the database when the backend dies have an unknown
    /// outcome: they are answered `.unavailable`, never dropped, and a retry
    /// stores each exactly once.
    @Test func batchesInFlightAreAnsweredUnavailable() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let session = try makeSessions(db, count: 1)[0]
        let collector = ResultCollector()
        let writer = try startedWriter(
            WriterConfiguration(
                databaseURL: db.url, maxBatchMessages: 10, maxBatchDelayMilliseconds: 1,
                reconnectBackoffMinimumMilliseconds: 20), collector)
        defer { writer.stop() }

        let locker = try db.connect()
        try locker.execute("BEGIN; LOCK TABLE chat_sessions IN ACCESS EXCLUSIVE MODE")
        for index in 0..<30 {
            #expect(writer.submit(command(session: session, clientID: "m-\(index)", token: UInt64(index))) == .accepted)
        }
        #expect(waitUntil(timeout: 10) { writer.statistics.batchesInFlight == 2 })
        #expect(try terminateWriterBackends(db) == writer.configuration.connections)
        let results = try collector.wait(for: 30)
        #expect(results.allSatisfy { $0.outcome == .unavailable })
        #expect(writer.statistics.unavailable == 30)
        // While it reconnects, or once back, submissions answer at once either way.
        try locker.execute("COMMIT")
        #expect(waitUntil(timeout: 10) { writer.isConnected })

        for index in 0..<30 {
            #expect(
                submitRetrying(writer, command(session: session, clientID: "m-\(index)", token: UInt64(100 + index)))
                    == .accepted)
        }
        let retried = try collector.wait(for: 60).filter { $0.token >= 100 }
        #expect(retried.count == 30)
        #expect(retried.allSatisfy { $0.outcome.isStored })
        #expect(try checkGapFree(db) == [session: 30])
    }
}
