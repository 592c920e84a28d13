import SwitchboardChat
import SwitchboardReaders

/// The operators and admins a core has seen say hello and not yet written
/// down. A console storm (thousands of operators reconnecting at once) would
/// otherwise put one upsert per hello in the readers' queue beside the joins
/// that need it, and the joins would be refused as `overloaded`. So a core
/// keeps at most one write in flight: the first hello is written at once,
/// and every hello that arrives while it runs rides on the next one.
struct StaffSightings {
    /// Rows per statement: four parameters each, far below PostgreSQL's 65,535.
    static let batchLimit = 500

    private var waiting: [Key: OperatorSighting] = [:]
    private var order: [Key] = []
    private(set) var writing = false

    private struct Key: Hashable {
        let workspaceID: String
        let id: String
    }

    var isEmpty: Bool { order.isEmpty }

    /// Notes `staff`; the latest name and role of a repeated sighting win.
    mutating func add(workspaceID: String, _ staff: Participant) {
        let key = Key(workspaceID: workspaceID, id: staff.id)
        if waiting.updateValue(OperatorSighting(workspaceID: workspaceID, staff: staff), forKey: key) == nil {
            order.append(key)
        }
    }

    /// The next write's rows (oldest first), now in flight; nil when a write
    /// is already in flight or nothing waits.
    mutating func startWrite() -> [OperatorSighting]? {
        guard !writing, !order.isEmpty else { return nil }
        let keys = order.prefix(Self.batchLimit)
        order.removeFirst(keys.count)
        writing = true
        return keys.compactMap { waiting.removeValue(forKey: $0) }
    }

    /// The write in flight ended. A refused one's rows wait again (newer
    /// sightings of the same operator, noted meanwhile, win).
    mutating func finishWrite(refused rows: [OperatorSighting] = []) {
        writing = false
        for row in rows where waiting[Key(workspaceID: row.workspaceID, id: row.staff.id)] == nil {
            add(workspaceID: row.workspaceID, row.staff)
        }
    }
}
