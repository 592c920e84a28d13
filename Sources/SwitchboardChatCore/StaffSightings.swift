import SwitchboardReaders

/// The operators and admins a core has seen say hello and not yet written
/// down. A console storm (thousands of operators reconnecting at once) would
/// otherwise put one upsert per hello in the readers' queue beside the joins
/// that need it, and the joins would be refused as `overloaded`. So a core
/// keeps at most `maxWrites` writes in flight: hellos are written as they
/// come until then, and every hello that arrives while they run rides on
/// the next one.
///
/// The backlog holds connection ids, not identities: the loop's heap keeps
/// the high-water mark of a storm's backlog, so it should be eight bytes a
/// hello (measured: copies of the sightings cost the idle scenario 80 bytes
/// per connection). A connection gone before its write is skipped; its
/// operator is recorded at its next hello (best effort, as before).
struct StaffSightings {
    /// Rows per statement: four parameters each, far below PostgreSQL's 65,535.
    static let batchLimit = 500
    /// Writes one core keeps in flight (the readers have a few threads).
    static let maxWrites = 4

    private var waiting: [UInt64] = []
    private var next = 0
    private(set) var writing = 0

    var isEmpty: Bool { next == waiting.count }

    /// Notes that connection `id` said hello as an operator or admin.
    mutating func add(_ id: UInt64) {
        waiting.append(id)
    }

    /// The next write, now in flight: its connections and their rows (oldest
    /// first, one per operator; `sighting` is nil for a connection gone).
    /// Nil when `maxWrites` are in flight or nothing waits.
    mutating func startWrite(
        _ sighting: (UInt64) -> OperatorSighting?
    ) -> (ids: [UInt64], rows: [OperatorSighting])? {
        guard writing < Self.maxWrites, !isEmpty else { return nil }
        let end = min(waiting.count, next + Self.batchLimit)
        let ids = Array(waiting[next..<end])
        var rows: [OperatorSighting] = []
        rows.reserveCapacity(end - next)
        var position: [OperatorKey: Int] = [:]
        for id in ids {
            guard let sighting = sighting(id) else { continue }
            let key = OperatorKey(workspaceID: sighting.workspaceID, id: sighting.staff.id)
            if let index = position[key] {
                rows[index] = sighting
            } else {
                position[key] = rows.count
                rows.append(sighting)
            }
        }
        next = end
        if isEmpty {
            // Let a storm's backlog go rather than keep its storage.
            waiting = []
            next = 0
        }
        writing += 1
        return (ids, rows)
    }

    /// A write in flight ended; a refused one's connections wait again.
    mutating func finishWrite(refused ids: [UInt64] = []) {
        writing -= 1
        waiting.insert(contentsOf: ids, at: next)
    }

    private struct OperatorKey: Hashable {
        let workspaceID: String
        let id: String
    }
}
