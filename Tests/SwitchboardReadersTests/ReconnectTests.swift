import Foundation
import SwitchboardPostgres
import SwitchboardReaders
import Synchronization
import Testing

@Suite struct ReconnectTests {
    private func terminateReaders(_ fixture: ReadersFixture) throws {
        #expect(try fixture.terminateReaders() >= 1)
    }

    @Test func recoversAfterTheBackendIsTerminated() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let session = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)

        // A read on a dead connection is retried once on a fresh one.
        try terminateReaders(fixture)
        #expect(try fixture.queries.session(id: session.id)?.id == session.id)

        // A create is not retried (it might run twice): unavailable, then the next call reconnects.
        try terminateReaders(fixture)
        let lost = capture { () throws(QueryError) in
            try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-2", title: nil)
        }
        #expect(isUnavailable(lost), "\(lost)")
        let next = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-3", title: nil)
        #expect(next.visitorID == "v-3")
        try fixture.queries.ping()
    }

    @Test func poolRecoversWithoutRestart() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let pool = ReaderPool(databaseURL: fixture.database.url, threads: 1, queueCapacity: 4)
        pool.start()
        defer { pool.stop() }

        func runPing() -> Result<Void, QueryError>? {
            let outcome = Mutex<Result<Void, QueryError>?>(nil)
            let done = DispatchSemaphore(value: 0)
            let accepted = pool.submit { queries in
                let result = capture { () throws(QueryError) in try queries.ping() }
                outcome.withLock { $0 = result }
                done.signal()
            }
            guard accepted, done.wait(timeout: .now() + 30) == .success else { return nil }
            return outcome.withLock { $0 }
        }

        #expect(throws: Never.self) { try runPing()?.get() }
        try terminateReaders(fixture)
        // The first call after the loss may report it; the one after must succeed.
        switch runPing() {
        case .success?, .failure(.unavailable)?: break
        case let other: Issue.record("unexpected \(String(describing: other))")
        }
        #expect(throws: Never.self) { try runPing()?.get() }
        #expect(runPing() != nil)
    }

    @Test func unreachableDatabaseIsUnavailable() {
        let queries = ChatQueries(databaseURL: "postgresql://postgres@127.0.0.1:1/none?connect_timeout=2")
        let result = capture { () throws(QueryError) in try queries.ping() }
        #expect(isUnavailable(result), "\(result)")
    }
}

@Suite struct BackgroundRoleTests {
    /// Each background worker's connection carries its own name, so that its
    /// cost to the database can be told apart from the readers'.
    @Test func aBackgroundConnectionIsNamedForItsRole() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let named = ChatQueries(databaseURL: fixture.database.url, waitsForDisk: false, role: .webhookDispatcher)
        try named.ping()
        try fixture.queries.ping()
        let names = try fixture.admin.query(
            """
            SELECT application_name FROM pg_stat_activity
             WHERE datname = $1 AND application_name LIKE 'switchboard-%' ORDER BY 1
            """, [fixture.database.name])
        let found = (0..<names.rowCount).compactMap { names.string($0, 0) }
        #expect(found == ["switchboard-reader", "switchboard-webhook-dispatcher"])
    }
}
