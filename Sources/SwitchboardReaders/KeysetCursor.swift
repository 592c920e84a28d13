import SwitchboardChat
import SwitchboardIdentifiers

/// A keyset position: the last row of a page (an inbox's session, a search's
/// message), by (created_at, id), written as "<created_at microseconds since
/// epoch>_<uuid>". created_at never changes, so a cursor stays valid while
/// rows are updated, and a page never repeats or skips a row.
struct KeysetCursor: Equatable {
    var createdAtMicroseconds: Int64
    /// Lower-case UUID text.
    var id: String

    init(createdAtMicroseconds: Int64, id: String) {
        self.createdAtMicroseconds = createdAtMicroseconds
        self.id = id
    }

    /// nil for anything that is not a cursor this type wrote: it reaches SQL
    /// only as parameters, but a malformed one must be the client's error
    /// (bad_request), not a database failure. The number is 1 to 18 digits,
    /// or "-" and 1 to 17, as docs/openapi.yaml's pattern says: no such
    /// number overflows Int64 or falls outside PostgreSQL's timestamps (4713
    /// BC to 294276 AD), and every session's created_at from 1200 BC to
    /// 33,000 AD has one.
    init?(_ text: String) {
        let parts = text.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let negative = parts[0].utf8.first == UInt8(ascii: "-")
        let digits = negative ? parts[0].utf8.dropFirst() : parts[0].utf8[...]
        guard (1...(negative ? 17 : 18)).contains(digits.count),
            digits.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }),
            let micros = Int64(parts[0]), let id = UUIDText.canonical(String(parts[1]))
        else { return nil }
        createdAtMicroseconds = micros
        self.id = id
    }

    var text: String { "\(createdAtMicroseconds)_\(id)" }
}
