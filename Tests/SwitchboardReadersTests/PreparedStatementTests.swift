import Foundation
import SwitchboardPostgres
import Testing

@testable import SwitchboardReaders

/// `ChatQueries.run(prepared:)`: a statement sent over and over is prepared on
/// its connection once, and keeps working across what a prepared statement
/// does not survive by itself (a new connection, a changed result).
@Suite struct PreparedStatementTests {
    private static let statement = "SELECT $1::int + 1"

    private func preparedNames(_ queries: ChatQueries) throws -> [String] {
        let result = try queries.run("SELECT name FROM pg_prepared_statements ORDER BY name", [], retryable: true)
        return (0..<result.rowCount).compactMap { result.string($0, 0) }
    }

    @Test func aStatementIsPreparedOnceAndRunWithItsParameters() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        for value in 1...3 {
            let result = try fixture.queries.run(
                prepared: "plus_one", Self.statement, [String(value)], retryable: true)
            #expect(result.string(0, 0) == String(value + 1))
        }
        #expect(try preparedNames(fixture.queries) == ["plus_one"])
    }

    @Test func aNewConnectionPreparesItAgain() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        _ = try fixture.queries.run(prepared: "plus_one", Self.statement, ["1"], retryable: true)
        #expect(try fixture.terminateReaders() == 1)
        // The lost connection is found and left; the retry on a fresh one prepares the statement there.
        let result = try fixture.queries.run(prepared: "plus_one", Self.statement, ["41"], retryable: true)
        #expect(result.string(0, 0) == "42")
        #expect(try preparedNames(fixture.queries) == ["plus_one"])
    }

    @Test func aChangedResultIsPreparedAgainOnTheNextCall() throws {
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
        // The statement prepared before the change fails once ("cached plan must not change result
        // type"), and is prepared again for the next call.
        let stale = capture { () throws(QueryError) in
            _ = try fixture.queries.run(prepared: "probe", sql, ["8"], retryable: true)
        }
        guard case .failure(let error) = stale else {
            Issue.record("the statement prepared before the change still ran: \(stale)")
            return
        }
        #expect("\(error)".contains("result type"), "\(error)")
        let result = try fixture.queries.run(prepared: "probe", sql, ["9"], retryable: true)
        #expect(result.string(0, 0) == "9")
        #expect(result.string(0, 1) == "x")
    }
}
