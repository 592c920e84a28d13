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
