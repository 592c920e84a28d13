import SwitchboardPostgres
import SwitchboardTestSupport
import Testing

/// A connection to the test server's own database (temp tables keep tests apart).
private func connectToTestServer() throws -> PostgresConnection {
    try PostgresConnection(TestDatabase.adminURL())
}

/// Flushes what `db` queued in pipeline mode and collects its events (a
/// result's first integer, an error's SQLSTATE, each sync) through `syncs` syncs.
private func pipelineEvents(_ db: PostgresConnection, syncs: Int) throws -> [String] {
    while try !db.flush() {}
    var events: [String] = []
    while events.filter({ $0 == "sync" }).count < syncs {
        try db.consumeInput()
        while let event = db.nextPipelineEvent() {
            switch event {
            case .result(let r): events.append("row \(r.int(0, 0) ?? -1)")
            case .failure(let e): events.append("error \(e.sqlState ?? "?")")
            case .sync: events.append("sync")
            }
        }
    }
    return events
}

@Suite struct PostgresConnectionTests {
    @Test func parametersAreValuesNeverSQL() throws {
        let db = try connectToTestServer()
        try db.execute("CREATE TEMP TABLE t (id int, name text)")
        let hostile = "x'); DROP TABLE t; --"
        try db.query("INSERT INTO t VALUES ($1, $2), ($3, $4)", ["1", hostile, "2", nil])
        let result = try db.query("SELECT id, name FROM t ORDER BY id")
        #expect(result.rowCount == 2)
        #expect(result.int(0, 0) == 1)
        #expect(result.string(0, 1) == hostile)
        #expect(result.isNull(1, 1))
        #expect(result.columnIndex("name") == 1)
    }

    @Test func serverErrorsCarrySQLStateAndKeepTheConnection() throws {
        let db = try connectToTestServer()
        try db.execute("CREATE TEMP TABLE u (id int PRIMARY KEY)")
        try db.query("INSERT INTO u VALUES ($1)", ["1"])
        let error = #expect(throws: PostgresError.self) { try db.query("INSERT INTO u VALUES ($1)", ["1"]) }
        #expect(error?.sqlState == "23505")
        #expect(error?.kind == .query)
        #expect(error?.isConnectionLoss == false)
        #expect(try db.query("SELECT count(*) FROM u").int(0, 0) == 1)
    }

    @Test func unreachableServerIsAConnectionError() {
        let error = #expect(throws: PostgresError.self) {
            try PostgresConnection("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2")
        }
        #expect(error?.kind == .connection)
        #expect(error?.message.contains("cannot connect") == true)
    }

    @Test func terminatedBackendIsAConnectionLoss() throws {
        let db = try connectToTestServer()
        let admin = try connectToTestServer()
        try admin.query("SELECT pg_terminate_backend($1)", [String(db.backendPID)])
        let error = #expect(throws: PostgresError.self) { try db.query("SELECT 1") }
        #expect(error?.isConnectionLoss == true)
    }

    @Test func pipelineReturnsResultsInOrderAndIsolatesFailuresPerSync() throws {
        let db = try connectToTestServer()
        try db.execute("CREATE TEMP TABLE p (id int PRIMARY KEY)")
        try db.enterPipelineMode()
        try db.sendStatement("INSERT INTO p VALUES ($1) RETURNING id", ["1"])
        try db.sendStatement("INSERT INTO p VALUES ($1) RETURNING id", ["1"])  // duplicate: fails alone
        try db.sendStatement("INSERT INTO p VALUES ($1) RETURNING id", ["2"])
        let events = try pipelineEvents(db, syncs: 3)
        #expect(events == ["row 1", "sync", "error 23505", "sync", "row 2", "sync"])
        try db.exitPipelineMode()
        #expect(try db.query("SELECT count(*) FROM p").int(0, 0) == 2)
    }

    @Test func preparedStatementRunsInThePipelineWithoutBeingParsedAgain() throws {
        let db = try connectToTestServer()
        try db.execute("CREATE TEMP TABLE q (id int PRIMARY KEY, name text)")
        try db.prepare("insert_q", "INSERT INTO q VALUES ($1, $2) RETURNING id")
        let preparedBefore = try db.query("SELECT count(*) FROM pg_prepared_statements WHERE name = 'insert_q'")
        #expect(preparedBefore.int(0, 0) == 1)
        try db.enterPipelineMode()
        try db.sendPrepared("insert_q", ["1", "x'); DROP TABLE q; --"])
        try db.sendPrepared("insert_q", ["1", nil])  // duplicate: fails alone, as an unprepared one would
        try db.sendPrepared("insert_q", ["2", nil])
        let events = try pipelineEvents(db, syncs: 3)
        #expect(events == ["row 1", "sync", "error 23505", "sync", "row 2", "sync"])
        try db.exitPipelineMode()
        #expect(try db.query("SELECT name FROM q WHERE id = 1").string(0, 0) == "x'); DROP TABLE q; --")
        // Three executions of the one prepared statement, none prepared anew.
        let executions = try db.query(
            "SELECT generic_plans + custom_plans FROM pg_prepared_statements WHERE name = 'insert_q'")
        #expect(executions.int(0, 0) == 3)
    }

    @Test func preparingBadSQLIsAQueryError() throws {
        let db = try connectToTestServer()
        let error = #expect(throws: PostgresError.self) { try db.prepare("broken", "SELEC 1") }
        #expect(error?.kind == .query)
        #expect(error?.sqlState == "42601")
    }
}

@Suite struct PostgresURLTests {
    @Test(arguments: [
        ("postgresql://postgres@127.0.0.1:5432/switchboard", "postgresql://postgres@127.0.0.1:5432/other"),
        ("postgresql://u@h:1/db?sslmode=disable&x=/y", "postgresql://u@h:1/other?sslmode=disable&x=/y"),
        ("postgresql://u@h:1", "postgresql://u@h:1/other"),
        ("postgresql://u@h:1?host=/tmp/s", "postgresql://u@h:1/other?host=/tmp/s"),
    ])
    func replacesOnlyTheDatabase(url: String, expected: String) {
        #expect(PostgresURL.replacingDatabase(in: url, with: "other") == expected)
    }
}
