import SwitchboardAttachments
import SwitchboardChat
import SwitchboardJSON
import SwitchboardSystem

/// Writes what a node tells the others (docs/cluster.md, "Notifications"),
/// in the format `BusDecoder` reads.
public struct BusEncoder: Sendable {
    public let node: String
    var writer = JSONWriter(capacity: 512)

    public init(node: String) {
        self.node = node
    }

    /// The notification for `event`, sent now.
    public mutating func encode(_ event: BusEvent) -> [UInt8] {
        writer.reset()
        writer.beginObject()
        writer.key("v")
        writer.int(1)
        writer.key("n")
        writer.string(node)
        writer.key("ts")
        writer.int(UnixClock.nowMicroseconds())
        var frame: [UInt8]?
        switch event {
        case .committed(let messages, let sessions):
            writer.key("t")
            writer.string("m")
            writer.key("m")
            writer.beginArray()
            // A session's state rides on its last message of the batch.
            var lastOfSession: [String: Int] = [:]
            for (index, message) in messages.enumerated() { lastOfSession[message.sessionID] = index }
            let states = Dictionary(sessions.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
            for (index, message) in messages.enumerated() {
                let state = lastOfSession[message.sessionID] == index ? states[message.sessionID] : nil
                self.message(message, state: state)
            }
            writer.endArray()
            // States of sessions with no message here (NATS's per-workspace subjects) go whole.
            let alone = sessions.filter { lastOfSession[$0.id] == nil }
            if !alone.isEmpty {
                writer.key("s")
                writer.beginArray()
                for session in alone { self.session(session) }
                writer.endArray()
            }
        case .ranges(let ranges):
            writer.key("t")
            writer.string("r")
            writer.key("r")
            writer.beginArray()
            for range in ranges {
                writer.beginArray()
                writer.string(range.sessionID)
                optional(range.workspaceID)
                writer.int(range.firstSeq)
                writer.int(range.lastSeq)
                writer.endArray()
            }
            writer.endArray()
        case .sessionFrame(let sessionID, let payload):
            writer.key("t")
            writer.string("e")
            writer.key("s")
            writer.string(sessionID)
            frame = payload
        case .sessionChanged(let session):
            writer.key("t")
            writer.string("c")
            writer.key("s")
            self.session(session)
        case .sessionStale(let sessionID, let workspaceID):
            writer.key("t")
            writer.string("x")
            writer.key("s")
            writer.string(sessionID)
            writer.key("w")
            writer.string(workspaceID)
        case .presence(let workspaceID, let operators, let complete):
            presence(workspaceID: workspaceID, operators: operators, complete: complete)
        case .queue(let snapshot):
            queue(snapshot)
        case .routingStale(let workspaceID):
            routingStale(workspaceID: workspaceID)
        }
        writer.endObject()
        guard let frame else { return writer.bytes }
        return writer.bytes + [UInt8(ascii: "\n")] + frame
    }

    /// A committed batch as notifications of at most `maxBytes` each: the
    /// batch itself when it fits in one; else, when its messages fit in at
    /// most `maxNotifications`, those (halves of the batch, each session's
    /// state with the half that holds its last message); else each session's
    /// `seq` range (`rangesPerNotification` to a notification) for the
    /// listeners to read. Listeners get most messages without a read at
    /// moderate rates, while the writer's full rate does not go through
    /// PostgreSQL's notification queue (an on-disk queue with a small buffer):
    /// splitting every batch, whatever its size, cost the writer 18% of its
    /// throughput (docs/cluster.md).
    public mutating func encodeCommitted(
        _ messages: [ChatMessage], sessions: [SessionInfo], maxBytes: Int, maxNotifications: Int = 4,
        rangesPerNotification: Int = 50
    ) -> [[UInt8]] {
        let whole = encode(.committed(messages: messages, sessions: sessions))
        if whole.count <= maxBytes { return [whole] }
        if whole.count <= maxBytes * maxNotifications * 3 / 4,
            let parts = split(messages[...], sessions: sessions, maxBytes: maxBytes), parts.count <= maxNotifications
        {
            return parts
        }
        return ranges(messages, sessions: sessions, maxBytes: maxBytes, perNotification: rangesPerNotification)
    }

    /// Halves until each part fits; nil when a single message does not.
    private mutating func split(
        _ messages: ArraySlice<ChatMessage>, sessions: [SessionInfo], maxBytes: Int
    )
        -> [[UInt8]]?
    {
        let whole = encode(.committed(messages: Array(messages), sessions: sessions))
        if whole.count <= maxBytes { return [whole] }
        guard messages.count > 1 else { return nil }
        let middle = messages.startIndex + messages.count / 2
        let right = messages[middle...]
        let rightSessions = Set(right.map(\.sessionID))
        guard
            let first = split(
                messages[..<middle], sessions: sessions.filter { !rightSessions.contains($0.id) }, maxBytes: maxBytes),
            let second = split(right, sessions: sessions.filter { rightSessions.contains($0.id) }, maxBytes: maxBytes)
        else { return nil }
        return first + second
    }

    private mutating func ranges(
        _ messages: [ChatMessage], sessions: [SessionInfo], maxBytes: Int, perNotification: Int
    ) -> [[UInt8]] {
        let workspaces = Dictionary(sessions.map { ($0.id, $0.workspaceID) }, uniquingKeysWith: { $1 })
        var ranges: [CommittedRange] = []
        var index: [String: Int] = [:]
        for message in messages {
            if let at = index[message.sessionID] {
                let range = ranges[at]
                ranges[at] = CommittedRange(
                    sessionID: range.sessionID, workspaceID: range.workspaceID,
                    firstSeq: min(range.firstSeq, message.seq), lastSeq: max(range.lastSeq, message.seq))
            } else {
                index[message.sessionID] = ranges.count
                ranges.append(
                    CommittedRange(
                        sessionID: message.sessionID, workspaceID: workspaces[message.sessionID],
                        firstSeq: message.seq, lastSeq: message.seq))
            }
        }
        var payloads: [[UInt8]] = []
        for start in stride(from: 0, to: ranges.count, by: perNotification) {
            payloads.append(encode(.ranges(Array(ranges[start..<min(start + perNotification, ranges.count)]))))
        }
        // States of sessions with no message in the batch: each alone, or to be read.
        for session in sessions where index[session.id] == nil {
            let state = encode(.committed(messages: [], sessions: [session]))
            payloads.append(
                state.count <= maxBytes
                    ? state : encode(.sessionStale(sessionID: session.id, workspaceID: session.workspaceID)))
        }
        return payloads
    }

    private mutating func message(_ message: ChatMessage, state: SessionInfo?) {
        writer.beginArray()
        writer.string(message.id)
        writer.string(message.sessionID)
        writer.int(message.seq)
        writer.string(message.clientMessageID)
        writer.string(message.kind)
        writer.string(message.body)
        writer.string(message.sender.role)
        writer.string(message.sender.id)
        optional(message.sender.name)
        writer.string(message.createdAt)
        if let state {
            writer.beginArray()
            writer.int(state.version)
            writer.string(state.workspaceID)
            writer.string(state.status.rawValue)
            writer.string(state.title)
            optional(state.visitorID)
            optional(state.assignedOperator?.id)
            optional(state.assignedOperator?.name)
            writer.string(state.createdAt)
            writer.string(state.updatedAt)
            routing(state)
            writer.endArray()
        } else {
            writer.null()
        }
        // An event's meta, a 12th field (null for a client's message with
        // attachments); the attachments' stored list (JSON text, no URLs: each
        // node signs its own), a 13th. A plain message of a client has 11.
        if message.meta != nil || !message.attachments.isEmpty { optional(message.meta) }
        if !message.attachments.isEmpty { writer.string(AttachmentObject.storedJSON(message.attachments)) }
        writer.endArray()
    }

    /// `[id, workspace, visitor, title, status, operator_id, operator_name, last_seq,
    ///   [seq, body, sender_role, created_at] | null, created_at, updated_at, version, deleted,
    ///   waiting_since, contact]`
    private mutating func session(_ session: SessionInfo) {
        writer.beginArray()
        writer.string(session.id)
        writer.string(session.workspaceID)
        optional(session.visitorID)
        writer.string(session.title)
        writer.string(session.status.rawValue)
        optional(session.assignedOperator?.id)
        optional(session.assignedOperator?.name)
        writer.int(session.lastSeq)
        if let last = session.lastMessage {
            writer.beginArray()
            writer.int(last.seq)
            writer.string(last.body)
            writer.string(last.senderRole)
            writer.string(last.createdAt)
            writer.endArray()
        } else {
            writer.null()
        }
        writer.string(session.createdAt)
        writer.string(session.updatedAt)
        writer.int(session.version)
        writer.bool(session.deleted)
        routing(session)
        writer.endArray()
    }

    /// A session's routing state (migration 9), last in its arrays so that a
    /// node of the version before, which stops at `updated_at` or `deleted`,
    /// is told apart by the count: `waiting_since` and `contact` (JSON text,
    /// in a string), each null when unset.
    private mutating func routing(_ session: SessionInfo) {
        optional(session.waitingSince)
        optional(session.contact)
    }

    mutating func optional(_ text: String?) {
        if let text { writer.string(text) } else { writer.null() }
    }
}
