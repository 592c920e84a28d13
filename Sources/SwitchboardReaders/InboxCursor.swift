/// The inbox's keyset position: the last session of a page, by
/// (created_at, id), written as "<created_at microseconds since epoch>_<uuid>".
/// created_at never changes, so a cursor stays valid while sessions are
/// updated, and a page never repeats or skips a session.
struct InboxCursor: Equatable {
    var createdAtMicroseconds: Int64
    /// Lower-case UUID text.
    var id: String

    init(createdAtMicroseconds: Int64, id: String) {
        self.createdAtMicroseconds = createdAtMicroseconds
        self.id = id
    }

    /// nil for anything that is not a cursor this type wrote: it reaches SQL
    /// only as parameters, but a malformed one must be the client's error
    /// (bad_request), not a database failure.
    init?(_ text: String) {
        let parts = text.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 2, let micros = Int64(parts[0]), parts[0].first != "+",
            Self.isUUID(parts[1])
        else { return nil }
        createdAtMicroseconds = micros
        id = parts[1].lowercased()
    }

    var text: String { "\(createdAtMicroseconds)_\(id)" }

    /// Canonical 8-4-4-4-12 hex UUID text, either case.
    static func isUUID(_ text: Substring) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            switch index {
            case 8, 13, 18, 23:
                if byte != UInt8(ascii: "-") { return false }
            default:
                let isHex =
                    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
                if !isHex { return false }
            }
        }
        return true
    }
}
