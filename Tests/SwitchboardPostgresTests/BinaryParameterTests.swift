import SwitchboardPostgres
import SwitchboardTestSupport
import Testing

/// Bytes travel as themselves: binary parameters in, binary results out.
@Suite struct BinaryParameterTests {
    @Test func byteaRoundTripsEveryByteValueBesideTextAndNull() throws {
        let db = try PostgresConnection(TestDatabase.adminURL())
        let every = (0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try db.execute("CREATE TEMP TABLE blobs (n integer, name text, data bytea)")
        try db.query(
            "INSERT INTO blobs VALUES (1, $1, $2), (2, $3, $4), (3, 'third', $5)",
            parameters: [.text("it's"), .bytes(every), .text(nil), .bytes([]), .bytes([0, 0, 0])])
        // In text form the server saw exactly those bytes.
        let text = try db.query("SELECT n, name, octet_length(data) FROM blobs ORDER BY n")
        #expect(
            text.rows.map { [$0[0], $0[1], $0[2]] } == [["1", "it's", "1024"], ["2", nil, "0"], ["3", "third", "3"]])
        let binary = try db.query(
            "SELECT data FROM blobs WHERE n = ANY($1::integer[]) ORDER BY n", parameters: [.text("{1,2,3}")],
            binaryResults: true)
        #expect(binary.rowCount == 3)
        #expect(binary.bytes(0, 0) == every)
        #expect(binary.bytes(1, 0) == [])
        #expect(binary.bytes(2, 0) == [0, 0, 0])
        let null = try db.query("SELECT NULL::bytea", parameters: [], binaryResults: true)
        #expect(null.bytes(0, 0) == nil)
        // A result read in place, without a copy.
        #expect(binary.withBytes(0, 0) { $0.count } == 1024)
    }
}
