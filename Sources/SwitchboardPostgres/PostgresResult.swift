import CLibPQ

/// The rows of one statement's result, in libpq's text format. Owns its
/// `PGresult` and frees it when released; values are copied out on access.
public final class PostgresResult {
    private let result: OpaquePointer

    /// Takes ownership of `result`.
    init(_ result: OpaquePointer) {
        self.result = result
    }

    deinit { PQclear(result) }

    public var rowCount: Int { Int(PQntuples(result)) }
    public var columnCount: Int { Int(PQnfields(result)) }

    /// Rows changed by INSERT/UPDATE/DELETE, 0 when not applicable.
    public var affectedRows: Int {
        guard let text = PQcmdTuples(result) else { return 0 }
        return Int(String(cString: text)) ?? 0
    }

    public func columnName(_ column: Int) -> String {
        PQfname(result, Int32(column)).map { String(cString: $0) } ?? ""
    }

    public func columnIndex(_ name: String) -> Int? {
        let index = Int(PQfnumber(result, name))
        return index >= 0 ? index : nil
    }

    public func isNull(_ row: Int, _ column: Int) -> Bool {
        PQgetisnull(result, Int32(row), Int32(column)) == 1
    }

    public func string(_ row: Int, _ column: Int) -> String? {
        guard !isNull(row, column), let value = PQgetvalue(result, Int32(row), Int32(column)) else { return nil }
        return String(cString: value)
    }

    public func int(_ row: Int, _ column: Int) -> Int? {
        string(row, column).flatMap { Int($0) }
    }

    /// PostgreSQL's text form of a boolean is "t" or "f".
    public func bool(_ row: Int, _ column: Int) -> Bool? {
        string(row, column).map { $0 == "t" }
    }

    /// A value's bytes as the server sent them: in a binary-format result
    /// (`query(_:parameters:binaryResults:)`) a `bytea` is its raw content. Nil for NULL.
    public func bytes(_ row: Int, _ column: Int) -> [UInt8]? {
        withBytes(row, column) { Array($0) }
    }

    /// Calls `body` with a value's bytes in place (valid only during the call); nil for NULL.
    public func withBytes<R>(_ row: Int, _ column: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R? {
        guard !isNull(row, column) else { return nil }
        let length = Int(PQgetlength(result, Int32(row), Int32(column)))
        return body(UnsafeRawBufferPointer(start: PQgetvalue(result, Int32(row), Int32(column)), count: length))
    }

    /// `withBytes` for a caller that keeps nothing: not generic, so a call from another module
    /// looks no type's metadata up (a call per column on the webhook expander's path).
    public func visitBytes(_ row: Int, _ column: Int, _ body: (UnsafeRawBufferPointer?) -> Void) {
        guard !isNull(row, column) else { return body(nil) }
        let length = Int(PQgetlength(result, Int32(row), Int32(column)))
        body(UnsafeRawBufferPointer(start: PQgetvalue(result, Int32(row), Int32(column)), count: length))
    }

    /// Every value of the result, rows of optional strings (small results only).
    public var rows: [[String?]] {
        (0..<rowCount).map { row in (0..<columnCount).map { string(row, $0) } }
    }
}
