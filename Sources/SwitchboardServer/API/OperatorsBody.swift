import SwitchboardJSON
import SwitchboardRouting

/// Bodies of `GET` and `PATCH /api/v1/operators`: each operator as routing
/// sees it, `{"id","name","role","status","connected","active_sessions",
/// "capacity","capacity_default","last_assigned_at","last_seen_at"}`.
enum OperatorsBody {
    /// `{"operators":[...]}`
    static func list(_ operators: some Sequence<OperatorPresence>) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("operators")
        writer.beginArray()
        for person in operators { object(person, &writer) }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// `{"operator":{...}}`
    static func one(_ person: OperatorPresence) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("operator")
        object(person, &writer)
        writer.endObject()
        return writer.bytes
    }

    private static func object(_ person: OperatorPresence, _ writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(person.id)
        writer.key("name")
        if let name = person.name { writer.string(name) } else { writer.null() }
        writer.key("role")
        writer.string(person.role)
        writer.key("status")
        writer.string(person.status.rawValue)
        writer.key("connected")
        writer.bool(person.connected)
        writer.key("active_sessions")
        writer.int(person.activeSessions)
        writer.key("capacity")
        writer.int(person.capacity)
        writer.key("capacity_default")
        writer.bool(person.capacityIsDefault)
        writer.key("last_assigned_at")
        if let stamp = person.lastAssignedAt { writer.string(stamp) } else { writer.null() }
        writer.key("last_seen_at")
        if let stamp = person.lastSeenAt { writer.string(stamp) } else { writer.null() }
        writer.endObject()
    }
}
