import Foundation
import SwitchboardPostgres
import Testing

@testable import SwitchboardReaders

/// `ChatQueries.run(prepared:)`: a statement sent over and over is prepared on
/// its connection once, and keeps working across what a prepared statement
/// does not survive by itself (a new connection, a changed result, a
/// statement dropped on the server).
@Suite struct PreparedStatementTests {
    private static let statement = "SELECT $1::int + 1"

    /// `statement` run prepared as "plus_one" with `value`; its answer.
    private func plusOne(_ queries: ChatQueries, _ value: String) throws(QueryError) -> String? {
        try queries.run(prepared: "plus_one", Self.statement, [value], retryable: true).string(0, 0)
    }

    private func preparedNames(_ queries: ChatQueries) throws -> [String] {
        let result = try queries.run("SELECT name FROM pg_prepared_statements ORDER BY name", [], retryable: true)
        return (0..<result.rowCount).compactMap { result.string($0, 0) }
    }

    @Test func aStatementIsPreparedOnceAndRunWithItsParameters() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        for value in 1...3 { #expect(try plusOne(fixture.queries, String(value)) == String(value + 1)) }
        #expect(try preparedNames(fixture.queries) == ["plus_one"])
    }

    @Test func aNewConnectionPreparesItAgain() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        #expect(try plusOne(fixture.queries, "1") == "2")
        #expect(try fixture.terminateReaders() == 1)
        // The lost connection is found and left; the retry on a fresh one prepares the statement there.
        #expect(try plusOne(fixture.queries, "41") == "42")
        #expect(try preparedNames(fixture.queries) == ["plus_one"])
    }

    @Test func aChangedResultIsPreparedAgainAndRunAtOnce() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        try fixture.admin.execute(
            "CREATE FUNCTION prepared_probe(p int) RETURNS TABLE (a int) LANGUAGE sql AS $$ SELECT p $$")
        let sql = "SELECT * FROM prepared_probe($1::int)"
        #expect(try fixture.queries.run(prepared: "probe", sql, ["7"], retryable: true).string(0, 0) == "7")
        // A migration that changes a function's result columns, while the gateway runs.
        try fixture.admin.execute(
            """
            DROP FUNCTION prepared_probe(int);
            CREATE FUNCTION prepared_probe(p int) RETURNS TABLE (a int, b text) LANGUAGE sql AS $$ SELECT p, 'x' $$
            """)
        // The statement prepared before the change fails ("cached plan must not change result type")
        // before it does anything: it is prepared again and run at once, and the caller sees the new
        // result, not the failure.
        let result = try fixture.queries.run(prepared: "probe", sql, ["9"], retryable: true)
        #expect(result.string(0, 0) == "9")
        #expect(result.string(0, 1) == "x")
    }

    @Test func aStatementDroppedOnTheServerIsPreparedAgainAndRunAtOnce() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        #expect(try plusOne(fixture.queries, "1") == "2")
        // What a pooler's reset or `DISCARD ALL` does to the connection's statements.
        _ = try fixture.queries.run("DEALLOCATE ALL", [], retryable: true)
        #expect(try preparedNames(fixture.queries) == [])
        #expect(try plusOne(fixture.queries, "2") == "3")
        #expect(try preparedNames(fixture.queries) == ["plus_one"])
    }

    @Test func anyOtherFailureKeepsTheStatementPrepared() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        #expect(try plusOne(fixture.queries, "1") == "2")
        let overflow = capture { () throws(QueryError) in
            _ = try plusOne(fixture.queries, "2147483647")
        }
        guard case .failure(let error) = overflow else {
            Issue.record("an integer overflow ran: \(overflow)")
            return
        }
        #expect("\(error)".contains("out of range"), "\(error)")
        #expect(try preparedNames(fixture.queries) == ["plus_one"])
        #expect(try plusOne(fixture.queries, "3") == "4")
    }

    /// A session's creation and the session and history reads of every
    /// subscribe are prepared, and answer the same on the one plan that
    /// PostgreSQL may use for all parameters from the sixth run on: a title
    /// given or not, a deleted session, a visitor's read without notes and an
    /// operator's with them, from a given seq and up to a limit.
    @Test func theSubscribeStatementsArePreparedAndAnswerAlikeOnTheirGenericPlan() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        _ = try fixture.queries.run("SET plan_cache_mode = force_generic_plan", [], retryable: true)
        let created = try (0..<8).map { index in
            try fixture.queries.createSession(
                workspaceID: fixture.workspaceID, visitorID: "v-\(index)", title: index == 6 ? "Billing" : nil)
        }
        #expect(created.map(\.title) == Array(repeating: "New chat", count: 6) + ["Billing", "New chat"])
        #expect(created.allSatisfy { $0.workspaceID == fixture.workspaceID && $0.lastSeq == 0 })
        #expect(Set(created.map(\.id)).count == 8)
        let sessions = Array(created.suffix(3))
        for (index, session) in sessions.enumerated() {
            for message in 0...index { try fixture.append(session: session.id, body: "m\(message)") }
        }
        try fixture.append(session: sessions[2].id, role: "operator", senderID: "op-1", kind: "note", body: "private")
        try fixture.softDelete(session: sessions[1].id)
        for _ in 0..<8 {
            #expect(try fixture.queries.session(id: sessions[0].id)?.lastSeq == 1)
            #expect(try fixture.queries.session(id: sessions[1].id) == nil)
            let third = try #require(try fixture.queries.session(id: sessions[2].id))
            #expect(third.lastSeq == 4)
            #expect(third.lastMessage?.body == "m2")
            let visitorReads = try fixture.queries.messages(
                sessionID: sessions[2].id, afterSeq: 0, limit: 10, withNotes: false)
            #expect(visitorReads.map(\.seq) == [1, 2, 3])
            let operatorReads = try fixture.queries.messages(
                sessionID: sessions[2].id, afterSeq: 1, limit: 10, withNotes: true)
            #expect(operatorReads.map(\.body) == ["m1", "m2", "private"])
            let firstTwo = try fixture.queries.messages(
                sessionID: sessions[2].id, afterSeq: 0, limit: 2, withNotes: true)
            #expect(firstTwo.map(\.seq) == [1, 2])
        }
        #expect(try preparedNames(fixture.queries) == ["messages_after", "session_by_id", "session_create"])
    }

    /// A read position, on the one plan PostgreSQL may keep: forward only,
    /// clamped to the session's last seq, per reader, nil for a deleted
    /// session.
    @Test func aReadPositionIsPreparedAndStoredAlikeOnItsGenericPlan() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let session = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        let gone = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-2", title: nil)
        for index in 1...5 { try fixture.append(session: session.id, body: "m\(index)") }
        try fixture.softDelete(session: gone.id)
        _ = try fixture.queries.run("SET plan_cache_mode = force_generic_plan", [], retryable: true)
        let read = { (id: String, reader: String, seq: Int64) throws(QueryError) -> Int64? in
            try fixture.queries.recordReads([
                ReadPosition(sessionID: id, readerID: reader, readerRole: "operator", seq: seq)
            ]).first ?? nil
        }
        let answers = try [
            read(session.id, "op-7", 3), read(session.id, "op-7", 2), read(session.id, "op-7", 4),
            read(session.id, "op-7", 99), read(session.id, "op-8", -4), read(session.id, "op-8", 1),
            read(gone.id, "op-7", 1), read(session.id, "op-8", 5),
        ]
        #expect(answers == [3, 3, 4, 5, 0, 1, nil, 5])
        #expect(try preparedNames(fixture.queries).contains("read_positions"))
    }
}
