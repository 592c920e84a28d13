import SwitchboardAttachments
import SwitchboardChat
import SwitchboardJSON
import SwitchboardRouting

/// Reads a notification as `BusEncoder` wrote it (any JSON spelling of it):
/// a JSON header, then, for session frames only, a newline and the frame's
/// bytes as they go to clients. Bus payloads come from other gateway nodes,
/// but are still checked field by field: a malformed one is an error, never a crash.
public enum BusDecoder {
    /// Generous (a batch can carry many large messages) but bounded.
    static let limits = JSONLimits(maxDepth: 8, maxStringBytes: 1 << 24, maxMembers: 1 << 17, maxTotalBytes: 1 << 26)

    public static func decode(_ bytes: [UInt8]) throws(BusDecodeError) -> BusNotification {
        let newline = bytes.firstIndex(of: UInt8(ascii: "\n"))
        let header: JSONValue
        do {
            header = try JSONParser.parse(newline.map { Array(bytes[..<$0]) } ?? bytes, limits: limits)
        } catch {
            throw BusDecodeError("not JSON: \(error)")
        }
        guard header["v"]?.int64Value == 1 else {
            throw BusDecodeError("unknown version \(header["v"]?.text ?? "none")")
        }
        let node = try string(header["n"], "n")
        let sentAt = header["ts"]?.int64Value ?? 0
        let event: BusEvent
        switch header["t"]?.stringValue {
        case "m":
            guard case .committed(let messages, let sessions) = try committed(header["m"]) else {
                throw BusDecodeError("unreachable")
            }
            event = .committed(messages: messages, sessions: sessions + (try states(header["s"])))
        case "r":
            event = .ranges(try array(header["r"], "r").map(range))
        case "e":
            guard let newline else { throw BusDecodeError("a session frame without its frame") }
            event = .sessionFrame(sessionID: try string(header["s"], "s"), payload: Array(bytes[(newline + 1)...]))
        case "c":
            event = .sessionChanged(try session(header["s"]))
        case "x":
            event = .sessionStale(sessionID: try string(header["s"], "s"), workspaceID: try string(header["w"], "w"))
        case "p":
            var operators: [OperatorPresence] = []
            for element in try array(header["o"], "o") { operators.append(try presence(element)) }
            event = .presence(
                workspaceID: try string(header["w"], "w"), operators: operators,
                complete: header["c"]?.boolValue ?? false)
        case "q":
            let head = try array(header["q"], "q")
            var queue: [String] = []
            queue.reserveCapacity(head.count)
            for id in head { queue.append(try string(id, "queued session")) }
            event = .queue(
                RoutingSnapshot(
                    workspaceID: try string(header["w"], "w"), queue: queue,
                    queueLength: Int(try int(header["l"], "l")), availableOperators: Int(try int(header["a"], "a"))))
        case "y":
            event = .routingStale(workspaceID: try string(header["w"], "w"))
        default:
            throw BusDecodeError("unknown type \(header["t"]?.text ?? "none")")
        }
        return BusNotification(node: node, sentAtMicroseconds: sentAt, event: event)
    }

    /// `[[id, session, seq, client_msg_id, kind, body, role, sender_id, sender_name, created_at, state, meta?,
    /// attachments?], ...]` (meta null when absent and attachments follow; attachments the stored list as JSON text),
    /// state `[version, workspace, status, title, visitor, operator_id, operator_name, created_at, updated_at,
    /// waiting_since?, contact?]` on a session's last message of the batch, else null.
    private static func committed(_ value: JSONValue?) throws(BusDecodeError) -> BusEvent {
        var messages: [ChatMessage] = []
        var sessions: [SessionInfo] = []
        for row in try array(value, "m") {
            let fields = try array(row, "message", counts: 11...13)
            let message = ChatMessage(
                id: try string(fields[0], "id"), sessionID: try string(fields[1], "session"),
                seq: try int(fields[2], "seq"), clientMessageID: try string(fields[3], "client_msg_id"),
                kind: try string(fields[4], "kind"), body: try string(fields[5], "body"),
                sender: Participant(
                    id: try string(fields[7], "sender_id"), role: try string(fields[6], "role"),
                    name: fields[8].stringValue),
                createdAt: try string(fields[9], "created_at"),
                meta: fields.count > 11 ? try optional(fields, 11, "meta") : nil,
                attachments: fields.count > 12 ? try attachments(fields[12]) : [])
            messages.append(message)
            guard !fields[10].isNull else { continue }
            let state = try array(fields[10], "state", counts: 9...11)
            sessions.append(
                SessionInfo(
                    id: message.sessionID, workspaceID: try string(state[1], "workspace"),
                    visitorID: state[4].stringValue, title: try string(state[3], "title"),
                    status: SessionStatus(rawValue: try string(state[2], "status")) ?? .open,
                    assignedOperator: state[5].stringValue.map { AssignedOperator(id: $0, name: state[6].stringValue) },
                    lastSeq: message.seq,
                    lastMessage: LastMessage(
                        seq: message.seq, body: message.body, senderRole: message.sender.role,
                        createdAt: message.createdAt),
                    createdAt: try string(state[7], "created_at"), updatedAt: try string(state[8], "updated_at"),
                    version: try int(state[0], "version"), waitingSince: try optional(state, 9, "waiting_since"),
                    contact: try contact(state, 10)))
        }
        return .committed(messages: messages, sessions: sessions)
    }

    /// A message's attachments: the stored list (`AttachmentObject.storedJSON`), in a string.
    private static func attachments(_ value: JSONValue) throws(BusDecodeError) -> [AttachmentObject] {
        guard let json = value.stringValue, let list = AttachmentObject.decodeList(json) else {
            throw BusDecodeError("attachments is not a list of attachments")
        }
        return list
    }

    /// The `s` array of a committed event: states of sessions with no message in it.
    private static func states(_ value: JSONValue?) throws(BusDecodeError) -> [SessionInfo] {
        guard let value, !value.isNull else { return [] }
        var sessions: [SessionInfo] = []
        for element in try array(value, "s") { sessions.append(try session(element)) }
        return sessions
    }

    /// `[session, workspace, first_seq, last_seq]`
    private static func range(_ value: JSONValue) throws(BusDecodeError) -> CommittedRange {
        let fields = try array(value, "range", count: 4)
        let range = CommittedRange(
            sessionID: try string(fields[0], "session"), workspaceID: fields[1].stringValue,
            firstSeq: try int(fields[2], "first_seq"), lastSeq: try int(fields[3], "last_seq"))
        guard range.firstSeq >= 1 && range.firstSeq <= range.lastSeq else {
            throw BusDecodeError("range \(range.firstSeq)...\(range.lastSeq)")
        }
        return range
    }

    /// `BusEncoder.session`'s array (13 fields from a node of the version before routing).
    static func session(_ value: JSONValue?) throws(BusDecodeError) -> SessionInfo {
        let fields = try array(value, "session", counts: 13...15)
        var last: LastMessage?
        if !fields[8].isNull {
            let message = try array(fields[8], "last_message", count: 4)
            last = LastMessage(
                seq: try int(message[0], "seq"), body: try string(message[1], "body"),
                senderRole: try string(message[2], "sender_role"), createdAt: try string(message[3], "created_at"))
        }
        return SessionInfo(
            id: try string(fields[0], "id"), workspaceID: try string(fields[1], "workspace"),
            visitorID: fields[2].stringValue, title: try string(fields[3], "title"),
            status: SessionStatus(rawValue: try string(fields[4], "status")) ?? .open,
            assignedOperator: fields[5].stringValue.map { AssignedOperator(id: $0, name: fields[6].stringValue) },
            lastSeq: try int(fields[7], "last_seq"), lastMessage: last, createdAt: try string(fields[9], "created_at"),
            updatedAt: try string(fields[10], "updated_at"), version: try int(fields[11], "version"),
            deleted: fields[12].boolValue ?? false, waitingSince: try optional(fields, 13, "waiting_since"),
            contact: try contact(fields, 14))
    }

    /// `BusEncoder.presence`'s array.
    private static func presence(_ value: JSONValue) throws(BusDecodeError) -> OperatorPresence {
        let fields = try array(value, "operator", count: 8)
        let statusText = try string(fields[3], "status")
        guard let status = OperatorStatus(rawValue: statusText) else {
            throw BusDecodeError("unknown operator status \(statusText)")
        }
        guard let connected = fields[4].boolValue else { throw BusDecodeError("connected is not a boolean") }
        return OperatorPresence(
            id: try string(fields[0], "id"), name: fields[1].stringValue, role: try string(fields[2], "role"),
            status: status, connected: connected, activeSessions: Int(try int(fields[5], "active_sessions")),
            capacity: Int(try int(fields[6], "capacity")), lastAssignedAt: try optional(fields, 7, "last_assigned_at"))
    }

    /// A string or null at `index`, or nil past the end (an older node's array).
    private static func optional(_ fields: [JSONValue], _ index: Int, _ name: String) throws(BusDecodeError) -> String?
    {
        guard index < fields.count, !fields[index].isNull else { return nil }
        return try string(fields[index], name)
    }

    /// A contact: JSON text that must be one object, since clients get it as it is.
    private static func contact(_ fields: [JSONValue], _ index: Int) throws(BusDecodeError) -> String? {
        guard let text = try optional(fields, index, "contact") else { return nil }
        guard case .object? = try? JSONParser.parse(Array(text.utf8), limits: limits) else {
            throw BusDecodeError("contact is not a JSON object")
        }
        return text
    }

    private static func array(
        _ value: JSONValue?, _ name: String, count: Int? = nil
    ) throws(BusDecodeError)
        -> [JSONValue]
    {
        guard let elements = value?.arrayValue else { throw BusDecodeError("\(name) is not an array") }
        if let count, elements.count != count {
            throw BusDecodeError("\(name) has \(elements.count) fields, not \(count)")
        }
        return elements
    }

    private static func array(
        _ value: JSONValue?, _ name: String, counts: ClosedRange<Int>
    ) throws(BusDecodeError)
        -> [JSONValue]
    {
        let elements = try array(value, name)
        guard counts.contains(elements.count) else {
            throw BusDecodeError("\(name) has \(elements.count) fields, not \(counts.lowerBound)-\(counts.upperBound)")
        }
        return elements
    }

    private static func string(_ value: JSONValue?, _ name: String) throws(BusDecodeError) -> String {
        guard let text = value?.stringValue else { throw BusDecodeError("\(name) is not a string") }
        return text
    }

    private static func int(_ value: JSONValue?, _ name: String) throws(BusDecodeError) -> Int64 {
        guard let number = value?.int64Value else { throw BusDecodeError("\(name) is not an integer") }
        return number
    }
}

public struct BusDecodeError: Error, CustomStringConvertible, Equatable {
    public let description: String
    init(_ description: String) { self.description = "bus notification: " + description }
}
