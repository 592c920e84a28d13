import SwitchboardChat
import SwitchboardJSON
import SwitchboardSystem

/// Writes what a node tells the others (docs/cluster.md, "Notifications"),
/// in the format `BusDecoder` reads.
public struct BusEncoder: Sendable {
    public let node: String
    private var writer = JSONWriter(capacity: 512)

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
        }
        writer.endObject()
        guard let frame else { return writer.bytes }
        return writer.bytes + [UInt8(ascii: "\n")] + frame
    }

    /// A committed batch as notifications of at most `maxBytes` each: the
    /// whole batch when it fits, else halves of it (each session's state
    /// staying with the half that holds its last message), down to single
    /// messages; a message too big for any notification is sent as its range,
    /// for the listeners to read.
    public mutating func encodeCommitted(
        _ messages: ArraySlice<ChatMessage>, sessions: [SessionInfo], maxBytes: Int
    ) -> [[UInt8]] {
        let whole = encode(.committed(messages: Array(messages), sessions: sessions))
        if whole.count <= maxBytes { return [whole] }
        if messages.count > 1 {
            let middle = messages.startIndex + messages.count / 2
            let right = messages[middle...]
            let rightSessions = Set(right.map(\.sessionID))
            return encodeCommitted(
                messages[..<middle], sessions: sessions.filter { !rightSessions.contains($0.id) }, maxBytes: maxBytes)
                + encodeCommitted(
                    right, sessions: sessions.filter { rightSessions.contains($0.id) }, maxBytes: maxBytes)
        }
        var payloads: [[UInt8]] = []
        if let message = messages.first {
            payloads.append(
                encode(
                    .ranges([
                        CommittedRange(
                            sessionID: message.sessionID,
                            workspaceID: sessions.first { $0.id == message.sessionID }?.workspaceID,
                            firstSeq: message.seq, lastSeq: message.seq)
                    ])))
        }
        // States alone (no message here, or one too big): each on its own, or to be read.
        for session in sessions where messages.first?.sessionID != session.id {
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
            writer.endArray()
        } else {
            writer.null()
        }
        writer.endArray()
    }

    /// `[id, workspace, visitor, title, status, operator_id, operator_name, last_seq,
    ///   [seq, body, sender_role, created_at] | null, created_at, updated_at, version, deleted]`
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
        writer.endArray()
    }

    private mutating func optional(_ text: String?) {
        if let text { writer.string(text) } else { writer.null() }
    }
}
