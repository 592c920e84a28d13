import Foundation
import SwitchboardStore
import SwitchboardTestSupport
import SwitchboardWriter
import Synchronization
import Testing

/// What a writer tells its operator about its connections: why it cannot
/// connect (once per reason, not once per retry), a lost connection, and
/// the connection coming back.
@Suite struct ConnectionEventsTests {
    final class EventLog: Sendable {
        private let events = Mutex<[WriterConnectionEvent]>([])
        func record(_ event: WriterConnectionEvent) { events.withLock { $0.append(event) } }
        var all: [WriterConnectionEvent] { events.withLock { $0 } }
    }

    /// A started one-shard writer (retrying every 10-40 ms) on a new test database.
    func withWriter(migrated: Bool, _ body: (TestDatabase, BatchWriter, EventLog) throws -> Void) throws {
        let db = try TestDatabase(migrated: migrated)
        defer { db.drop() }
        let log = EventLog()
        let writer = BatchWriter(
            configuration: WriterConfiguration(
                databaseURL: db.url, connections: 1, reconnectBackoffMinimumMilliseconds: 10,
                reconnectBackoffMaximumMilliseconds: 40),
            connectionEvents: log.record, sink: ResultCollector().sink)
        defer { writer.stop() }
        writer.start()
        try body(db, writer, log)
    }

    /// An unmigrated database: the batch statement cannot be prepared. The
    /// reason (the missing function) is reported once while the writer keeps
    /// trying; once the schema is there the writer connects and says after
    /// how many failed attempts.
    @Test func aFailureIsReportedOnceWithItsReasonAndTheRecoveryWithItsAttempts() throws {
        try withWriter(migrated: false) { db, writer, log in
            #expect(waitUntil(timeout: 10) { !log.all.isEmpty })
            // Several more attempts at 10-40 ms each, all for the same reason.
            Thread.sleep(forTimeInterval: 0.5)
            #expect(!writer.isConnected)
            let failures = log.all
            #expect(failures.count == 1)
            guard case .connectFailed(connection: 0, let reason) = failures.first else {
                Issue.record("expected a connect failure first, got \(failures)")
                return
            }
            #expect(reason.contains("switchboard_append_messages"))

            try MigrationRunner(connection: db.connect()).up()
            #expect(waitUntil(timeout: 10) { writer.isConnected })
            // Each migration commits on its own, so the writer may meet a schema
            // between versions and fail once more, for that other reason:
            // still never the same reason twice in a row.
            let events = log.all
            let reasons = events.compactMap { event -> String? in
                if case .connectFailed(_, let reason) = event { return reason }
                return nil
            }
            #expect(reasons.count == events.count - 1)
            #expect(zip(reasons, reasons.dropFirst()).allSatisfy { $0 != $1 }, "a reason is reported once: \(reasons)")
            guard case .restored(let attempts) = events.last else {
                Issue.record("expected the connection restored last, got \(events)")
                return
            }
            #expect(attempts >= 5)
        }
    }

    /// A clean first connection says nothing; a terminated backend is
    /// reported as lost, and the reconnect as restored with no failed attempt.
    @Test func aLostConnectionAndItsReturnAreReported() throws {
        try withWriter(migrated: true) { db, writer, log in
            #expect(waitUntil(timeout: 10) { writer.isConnected })
            #expect(log.all.isEmpty)

            // The server's goodbye makes the idle writer's socket readable: the
            // loss is seen without anything to send.
            let terminated = try terminateWriterBackends(db)
            #expect(terminated == 1)
            #expect(waitUntil(timeout: 10) { log.all.count >= 2 })
            #expect(waitUntil(timeout: 10) { writer.isConnected })
            let events = log.all
            #expect(events.count == 2)
            if case .lost(connection: 0, let reason) = events.first {
                #expect(!reason.isEmpty)
            } else {
                Issue.record("expected the loss first, got \(events)")
            }
            #expect(events.last == .restored(failedAttempts: 0))
        }
    }
}
