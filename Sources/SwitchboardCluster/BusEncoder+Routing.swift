import SwitchboardJSON
import SwitchboardRouting

/// Routing's news on the bus (docs/routing.md, "Presence and availability
/// travel"): `p` operators (`c`: the workspace's whole list), `q` a pass's
/// queue head, length and operators with room, `y` a hint to read.
extension BusEncoder {
    mutating func presence(workspaceID: String, operators: [OperatorPresence], complete: Bool) {
        writer.key("t")
        writer.string("p")
        writer.key("w")
        writer.string(workspaceID)
        writer.key("c")
        writer.bool(complete)
        writer.key("o")
        writer.beginArray()
        for presence in operators { self.presence(presence) }
        writer.endArray()
    }

    mutating func queue(_ snapshot: RoutingSnapshot) {
        writer.key("t")
        writer.string("q")
        writer.key("w")
        writer.string(snapshot.workspaceID)
        writer.key("q")
        writer.beginArray()
        for id in snapshot.queue { writer.string(id) }
        writer.endArray()
        writer.key("l")
        writer.int(snapshot.queueLength)
        writer.key("a")
        writer.int(snapshot.availableOperators)
    }

    mutating func routingStale(workspaceID: String) {
        writer.key("t")
        writer.string("y")
        writer.key("w")
        writer.string(workspaceID)
    }

    /// `[id, name, role, status, connected, active_sessions, capacity, last_assigned_at]`
    mutating func presence(_ presence: OperatorPresence) {
        writer.beginArray()
        writer.string(presence.id)
        optional(presence.name)
        writer.string(presence.role)
        writer.string(presence.status.rawValue)
        writer.bool(presence.connected)
        writer.int(presence.activeSessions)
        writer.int(presence.capacity)
        optional(presence.lastAssignedAt)
        writer.endArray()
    }
}
