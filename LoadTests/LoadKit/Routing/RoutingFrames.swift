/// The frames of the routing scenario: what its consoles send beyond the
/// chat's (`presence.set`, `session.close`), and what it reads from the
/// gateway's (`session.updated`'s session, an event's `meta`, `presence`'s
/// operator), from byte ranges as `ServerFrame` reads the chat's frames.
enum RoutingFrames {
    static func presenceSet(_ status: String, ref: String) -> String {
        #"{"type":"presence.set","ref":"\#(ref)","status":"\#(status)"}"#
    }

    static func sessionClose(_ sessionID: String, ref: String) -> String {
        #"{"type":"session.close","ref":"\#(ref)","session_id":"\#(sessionID)"}"#
    }

    /// The members of a gateway frame the scenario acts on.
    struct Frame {
        var type = ""
        var ref: String?
        var code: String?
        var session: Range<Int>?
        var sessionID: String?
        var seq: Int64 = -1
        var clientMsgID: Range<Int>?
        var isEvent = false
        var meta: Range<Int>?
        var operatorObject: Range<Int>?
    }

    static func read(_ bytes: UnsafeRawBufferPointer) -> Frame? {
        var frame = Frame()
        let complete = JSONMembers.forEach(in: bytes, range: 0..<bytes.count) { key, value in
            if JSONMembers.equals(bytes, key, "type") {
                frame.type = text(bytes, value)
            } else if JSONMembers.equals(bytes, key, "ref") {
                frame.ref = text(bytes, value)
            } else if JSONMembers.equals(bytes, key, "code") {
                frame.code = text(bytes, value)
            } else if JSONMembers.equals(bytes, key, "session") {
                frame.session = value
            } else if JSONMembers.equals(bytes, key, "session_id") {
                frame.sessionID = text(bytes, value)
            } else if JSONMembers.equals(bytes, key, "seq") {
                frame.seq = JSONMembers.integer(bytes, value) ?? -1
            } else if JSONMembers.equals(bytes, key, "client_msg_id") {
                frame.clientMsgID = value
            } else if JSONMembers.equals(bytes, key, "kind") {
                frame.isEvent = JSONMembers.equals(bytes, value, "event")
            } else if JSONMembers.equals(bytes, key, "meta") {
                frame.meta = value
            } else if JSONMembers.equals(bytes, key, "operator") {
                frame.operatorObject = value
            }
            return true
        }
        return complete ? frame : nil
    }

    /// A session object as the invariants take it; nil without an id or a version.
    static func snapshot(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> RoutingInvariants.Snapshot? {
        var id: String?
        var version: Int64?
        var closed = false
        var operatorID: String?
        _ = JSONMembers.forEach(in: bytes, range: range) { key, value in
            if JSONMembers.equals(bytes, key, "id") {
                id = text(bytes, value)
            } else if JSONMembers.equals(bytes, key, "version") {
                version = JSONMembers.integer(bytes, value)
            } else if JSONMembers.equals(bytes, key, "status") {
                closed = JSONMembers.equals(bytes, value, "closed")
            } else if JSONMembers.equals(bytes, key, "assigned_operator") {
                operatorID = member("id", of: bytes, value)
            }
            return true
        }
        guard let id, let version else { return nil }
        return RoutingInvariants.Snapshot(session: id, version: version, closed: closed, operatorID: operatorID)
    }

    /// An event message's change, from its `meta`; nil for an action routing does not judge (`reopened`).
    static func stored(_ bytes: UnsafeRawBufferPointer, meta: Range<Int>) -> RoutingInvariants.Stored? {
        var action = ""
        var operatorID: String?
        var previous: String?
        _ = JSONMembers.forEach(in: bytes, range: meta) { key, value in
            if JSONMembers.equals(bytes, key, "action") {
                action = text(bytes, value)
            } else if JSONMembers.equals(bytes, key, "operator") {
                operatorID = member("id", of: bytes, value)
            } else if JSONMembers.equals(bytes, key, "previous") {
                previous = member("id", of: bytes, value)
            }
            return true
        }
        switch action {
        case "assigned": return operatorID.map { .assigned(operatorID: $0, previous: previous) }
        case "requeued", "unassigned": return .released(action: action)
        case "closed": return .closed
        default: return nil
        }
    }

    /// A string member of the object at `range`; nil when absent, null, or `range` is not an object.
    static func member(_ name: StaticString, of bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> String? {
        guard !range.isEmpty, bytes[range.lowerBound] == UInt8(ascii: "{") else { return nil }
        var found: String?
        _ = JSONMembers.forEach(in: bytes, range: range) { key, value in
            if JSONMembers.equals(bytes, key, name) && !JSONMembers.equals(bytes, value, "null") {
                found = text(bytes, value)
            }
            return found == nil
        }
        return found
    }

    /// An integer member of the object at `range`.
    static func integer(_ name: StaticString, of bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int64? {
        var found: Int64?
        _ = JSONMembers.forEach(in: bytes, range: range) { key, value in
            if JSONMembers.equals(bytes, key, name) { found = JSONMembers.integer(bytes, value) }
            return found == nil
        }
        return found
    }

    static func text(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }
}
