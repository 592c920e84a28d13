import Foundation
import SwitchboardTestSupport
import SwitchboardWriter
import Testing

@Suite struct ConcurrentWritersTests {
    /// Two writers (as on two gateway nodes) on separate connections, writing
    /// the same sessions at once: the row locks keep every session gap-free.
    @Test func twoWritersKeepEverySessionGapFree() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let sessions = try makeSessions(db, count: 20)
        let perWriter = 20_000
        let collectors = [ResultCollector(), ResultCollector()]
        let writers = try collectors.map {
            try startedWriter(WriterConfiguration(databaseURL: db.url, maxBatchMessages: 256), $0)
        }
        defer { for writer in writers { writer.stop() } }

        let group = DispatchGroup()
        for (index, writer) in writers.enumerated() {
            DispatchQueue.global().async(group: group) {
                for message in 0..<perWriter {
                    // Interleaved: both writers cover every session all the time.
                    let session = sessions[(message + index * 7) % sessions.count]
                    let outcome = submitRetrying(
                        writer, command(session: session, clientID: "w\(index)-\(message)", token: UInt64(message)))
                    precondition(outcome == .accepted, "\(outcome)")
                }
            }
        }
        group.wait()
        for collector in collectors { _ = try collector.wait(for: perWriter, timeout: 120) }

        let counts = try checkGapFree(db)
        #expect(counts.values.reduce(0, +) == 2 * perWriter)
        #expect(counts.count == sessions.count)
        let rows = try storedRows(db)
        for (index, collector) in collectors.enumerated() {
            let results = try collector.byToken()
            #expect(results.count == perWriter)
            for (token, result) in results {
                let message = try #require(result.outcome.message)
                #expect(result.outcome.isStored)
                let row = rows["w\(index)-\(token)"]
                #expect(row == [StoredRow(id: message.id, sessionID: message.sessionID, seq: message.seq)])
            }
        }
    }
}
