import SwitchboardAuth
import SwitchboardChat

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
            let id = UUIDText.canonical(String(parts[1]))
        else { return nil }
        createdAtMicroseconds = micros
        self.id = id
    }

    var text: String { "\(createdAtMicroseconds)_\(id)" }
}
