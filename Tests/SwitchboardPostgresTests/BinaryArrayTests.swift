import SwitchboardPostgres
import SwitchboardTestSupport
import Testing

/// Arrays in binary format read back by a real server as the values built.
@Suite struct BinaryArrayTests {
    private func run(_ parameters: PostgresBinaryParameters, _ sql: String) throws -> PostgresResult? {
        let db = try PostgresConnection(TestDatabase.adminURL())
        try db.prepare("arrays", sql)
        try db.enterPipelineMode()
        try db.sendPrepared("arrays", parameters)
        while try !db.flush() {}
        var result: PostgresResult?
        var synced = false
        while !synced {
            try db.consumeInput()
            while let event = db.nextPipelineEvent() {
                switch event {
                case .result(let r): result = r
                case .failure(let e): throw e
                case .sync: synced = true
                }
            }
        }
        return result
    }

    @Test func uuidAndTextArraysWithNullsAndEmptyOnesReachTheServerAsBuilt() throws {
        var parameters = PostgresBinaryParameters()
        parameters.startArray(of: .uuid, count: 3)
        parameters.appendUUIDElement(high: 0x0000_0000_0000_4000, low: 0x8000_0000_0000_000a)
        parameters.appendUUIDElement(high: 0xabcd_ef01_2345_4678, low: 0x9abc_def0_1234_5678)
        parameters.appendNullElement()
        parameters.endArray()
        parameters.startArray(of: .text, count: 4)
        parameters.appendElement(#"quote " slash \ {,} NULL"#)
        parameters.appendNullElement()
        parameters.appendElement("")
        parameters.appendElement("héllo 🎉")
        parameters.endArray()
        parameters.startArray(of: .text, count: 0)
        parameters.endArray()
        parameters.appendNull()
        let result = try #require(
            try run(
                parameters,
                """
                SELECT array_to_string($1::uuid[], ' ', 'null'), cardinality($2::text[]),
                       $2::text[] IS NOT DISTINCT FROM ARRAY[$$quote " slash \\ {,} NULL$$, NULL, '', 'héllo 🎉'],
                       cardinality($3::text[]), $4::text[] IS NULL
                """))
        #expect(
            result.string(0, 0)
                == "00000000-0000-4000-8000-00000000000a abcdef01-2345-4678-9abc-def012345678 null")
        #expect(result.int(0, 1) == 4)
        #expect(result.string(0, 2) == "t")
        #expect(result.int(0, 3) == 0)
        #expect(result.string(0, 4) == "t")
    }

    @Test func anElementTypeTheStatementDoesNotTakeIsTheServersError() throws {
        var parameters = PostgresBinaryParameters()
        parameters.startArray(of: .text, count: 1)
        parameters.appendElement("00000000-0000-4000-8000-000000000001")
        parameters.endArray()
        #expect(throws: PostgresError.self) { try run(parameters, "SELECT $1::uuid[]") }
    }
}
