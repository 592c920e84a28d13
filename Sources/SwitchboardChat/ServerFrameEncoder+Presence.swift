import SwitchboardRouting

/// Frames about operators' presence (docs/routing.md).
extension ServerFrameEncoder {
    /// `{"type":"presence","ref":..,"operator":{...}}`: an operator's own state, the answer to `presence.set`.
    public mutating func presence(ref: String?, _ presence: OperatorPresence) -> [UInt8] {
        begin("presence", ref: ref)
        writer.key("operator")
        presenceObject(presence)
        return end()
    }

    /// `{"type":"presence.list","ref":..,"operators":[...]}`: every operator of the workspace, the answer to `presence.subscribe`.
    public mutating func presenceList(ref: String?, _ operators: [OperatorPresence]) -> [UInt8] {
        begin("presence.list", ref: ref)
        writer.key("operators")
        writer.beginArray()
        for presence in operators { presenceObject(presence) }
        writer.endArray()
        return end()
    }

    /// `{"type":"presence.updated","operator":{...}}`: one operator changed (to the consoles following presence).
    public mutating func presenceUpdated(_ presence: OperatorPresence) -> [UInt8] {
        begin("presence.updated", ref: nil)
        writer.key("operator")
        presenceObject(presence)
        return end()
    }

    /// `{"type":"availability","session_id":..,"operators_available":..,"queue_position":..}`, with
    /// `"open":false,"opens_at":..` outside business hours: to the visitor of a session.
    public mutating func availability(sessionID: String, _ availability: VisitorAvailability) -> [UInt8] {
        begin("availability", ref: nil)
        writer.key("session_id")
        writer.string(sessionID)
        writer.key("operators_available")
        writer.bool(availability.operatorsAvailable)
        if let position = availability.queuePosition {
            writer.key("queue_position")
            writer.int(Int64(position))
        }
        if !availability.hours.open {
            writer.key("open")
            writer.bool(false)
            if let opensAt = availability.hours.opensAt {
                writer.key("opens_at")
                writer.string(opensAt)
            }
        }
        return end()
    }

    /// `{"id","name","status","connected","active_sessions","capacity"}`, as PROTOCOL.md's `presence.updated` shows it.
    mutating func presenceObject(_ presence: OperatorPresence) {
        writer.beginObject()
        writer.key("id")
        writer.string(presence.id)
        writer.key("name")
        optionalString(presence.name)
        writer.key("status")
        writer.string(presence.status.rawValue)
        writer.key("connected")
        writer.bool(presence.connected)
        writer.key("active_sessions")
        writer.int(Int64(presence.activeSessions))
        writer.key("capacity")
        writer.int(Int64(presence.capacity))
        writer.endObject()
    }
}
