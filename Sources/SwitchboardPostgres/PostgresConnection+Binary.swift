import CLibPQ

#if canImport(Glibc)
import Glibc
#endif

/// One statement parameter: text as `query` sends it, or raw bytes sent in
/// binary format, so a `bytea` value travels as itself instead of as hex text
/// twice its size.
public enum PostgresParameter: Sendable {
    case text(String?)
    case bytes([UInt8])
}

extension PostgresConnection {
    /// Runs one statement with text and binary parameters. `binaryResults`
    /// asks for every column in binary format: a `bytea` column then reads
    /// back as its raw bytes (`PostgresResult.bytes`); other types come in
    /// their binary wire form, so select only `bytea` columns in such a query.
    @discardableResult
    public func query(
        _ sql: String, parameters: [PostgresParameter], binaryResults: Bool = false
    ) throws(PostgresError) -> PostgresResult {
        let count = parameters.count
        var values = [UnsafePointer<CChar>?](repeating: nil, count: count)
        var lengths = [Int32](repeating: 0, count: count)
        var formats = [Int32](repeating: 0, count: count)
        var copies: [UnsafeMutablePointer<CChar>?] = []
        defer { for copy in copies { free(copy) } }
        for (index, parameter) in parameters.enumerated() {
            guard case .text(let text) = parameter, let text else { continue }
            let copy = strdup(text)
            copies.append(copy)
            values[index] = UnsafePointer(copy)
        }
        // The byte parameters are passed in place: each is pinned by a nested
        // closure for the duration of the call.
        func send(from index: Int) -> OpaquePointer? {
            guard index < count else {
                return PQexecParams(
                    connection, sql, Int32(count), nil, values, lengths, formats, binaryResults ? 1 : 0)
            }
            guard case .bytes(let bytes) = parameters[index] else { return send(from: index + 1) }
            return bytes.withUnsafeBufferPointer { buffer in
                // libpq reads a binary value's `length` bytes; an empty one still needs a non-NULL pointer.
                let base = buffer.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(bitPattern: 1)
                values[index] = base?.assumingMemoryBound(to: CChar.self)
                lengths[index] = Int32(buffer.count)
                formats[index] = 1
                return send(from: index + 1)
            }
        }
        return try check(send(from: 0))
    }
}
