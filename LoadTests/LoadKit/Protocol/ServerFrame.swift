/// The fields of a gateway frame the harness acts on, as byte ranges into
/// the received payload: read without building a JSON tree, because a fan-out
/// run parses a million of these a second on one core. Members may come in
/// any order; unknown members are skipped.
public struct ServerFrame: Equatable {
    public enum Kind: Equatable, Sendable {
        case welcome, session, joined, ack, message, error, other
    }

    public var kind = Kind.other
    public var sessionID: Range<Int>?
    public var seq: Int64 = -1
    public var ref: Range<Int>?
    public var clientMsgID: Range<Int>?
    public var body: Range<Int>?
    public var code: Range<Int>?
    public var duplicate = false
    public var truncated = false
    /// The `session` object of a `session` frame (its `id` is read with `nestedID`).
    public var session: Range<Int>?

    /// Reads a frame; nil when the payload is not a JSON object.
    public static func read(_ bytes: UnsafeRawBufferPointer) -> ServerFrame? {
        readMessage(bytes) ?? readMembers(bytes)
    }

    /// Any frame, its members in any order.
    static func readMembers(_ bytes: UnsafeRawBufferPointer) -> ServerFrame? {
        var frame = ServerFrame()
        let complete = JSONMembers.forEach(in: bytes, range: 0..<bytes.count) { key, value in
            if JSONMembers.equals(bytes, key, "type") {
                frame.kind = kind(bytes, value)
            } else if JSONMembers.equals(bytes, key, "session_id") {
                frame.sessionID = value
            } else if JSONMembers.equals(bytes, key, "seq") {
                frame.seq = JSONMembers.integer(bytes, value) ?? -1
            } else if JSONMembers.equals(bytes, key, "ref") {
                frame.ref = value
            } else if JSONMembers.equals(bytes, key, "client_msg_id") {
                frame.clientMsgID = value
            } else if JSONMembers.equals(bytes, key, "body") {
                frame.body = value
            } else if JSONMembers.equals(bytes, key, "code") {
                frame.code = value
            } else if JSONMembers.equals(bytes, key, "duplicate") {
                frame.duplicate = JSONMembers.equals(bytes, value, "true")
            } else if JSONMembers.equals(bytes, key, "truncated") {
                frame.truncated = JSONMembers.equals(bytes, value, "true")
            } else if JSONMembers.equals(bytes, key, "session") {
                frame.session = value
            }
            // A message's sender and timestamp are not needed: stop reading
            // (a fan-out run reads a million of these a second).
            return !(frame.kind == .message && frame.seq >= 0 && frame.sessionID != nil && frame.body != nil)
        }
        return complete ? frame : nil
    }

    /// A `message` frame in the gateway's layout (`MessageFrame`), as the general walk reads it.
    static func readMessage(_ bytes: UnsafeRawBufferPointer) -> ServerFrame? {
        guard let message = MessageFrame.read(bytes) else { return nil }
        var frame = ServerFrame()
        frame.kind = .message
        frame.sessionID = message.sessionID
        frame.seq = message.seq
        frame.clientMsgID = message.clientMsgID
        frame.body = message.body
        return frame
    }

    /// The `id` member of the object at `range` (a `session` frame's session).
    public static func nestedID(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Range<Int>? {
        var id: Range<Int>?
        _ = JSONMembers.forEach(in: bytes, range: range) { key, value in
            if JSONMembers.equals(bytes, key, "id") { id = value }
            return id == nil
        }
        return id
    }

    private static func kind(_ bytes: UnsafeRawBufferPointer, _ value: Range<Int>) -> Kind {
        if JSONMembers.equals(bytes, value, "message") { return .message }
        if JSONMembers.equals(bytes, value, "ack") { return .ack }
        if JSONMembers.equals(bytes, value, "joined") { return .joined }
        if JSONMembers.equals(bytes, value, "welcome") { return .welcome }
        if JSONMembers.equals(bytes, value, "session") { return .session }
        if JSONMembers.equals(bytes, value, "error") { return .error }
        return .other
    }
}
