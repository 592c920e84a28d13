import SwitchboardPostgres
import SwitchboardTestSupport
import Testing

@Suite struct PostgresArrayTests {
    @Test func everyElementComesBackAsItWasThroughTheServer() throws {
        let db = try PostgresConnection(TestDatabase.adminURL())
        let values: [String?] = [
            "plain", "", "a,b", "{braces}", "sp ace", "NULL", nil, #"back\slash"#, #"quo"te"#, #"\""#,
            "\"\u{301}quote with a combining mark", "e\u{301}\u{1F600}ü", "line\nbreak",
        ]
        let result = try db.query(
            "SELECT value FROM unnest($1::text[]) WITH ORDINALITY AS t(value, n) ORDER BY n",
            [PostgresArray.textLiteral(values)])
        #expect(result.rowCount == values.count)
        for (row, value) in values.enumerated() {
            #expect(result.isNull(row, 0) == (value == nil))
            if let value { #expect(result.string(row, 0) == value) }
        }
    }

    @Test func literalsAreQuotedAndEscapedByteForByte() {
        #expect(PostgresArray.textLiteral([]) == "{}")
        #expect(PostgresArray.textLiteral(["a", nil, #"b"c\d"#]) == #"{"a",NULL,"b\"c\\d"}"#)
        #expect(PostgresArray.textLiteral(["\"\u{301}"]) == "{\"\\\"\u{301}\"}")
    }
}
