import SwitchboardIdentifiers

/// One `send` to store: what the protocol's `send` frame carries plus who sent
/// it, and where its result goes back to.
public struct WriteCommand: Sendable {
    /// The session's id, as UUID text (8-4-4-4-12 hex digits).
    public var sessionID: String
    /// The client's idempotency key: a retry with the same key in the same
    /// session returns the original row instead of storing a second copy.
    public var clientMessageID: String
    public var senderRole: String
    public var senderID: String
    public var senderName: String?
    public var kind: String
    public var body: String
    /// The ids (UUID text) of uploads this message sends, in the order shown;
    /// empty for most messages. The function checks each is an unsent upload
    /// of the sender's to this session and refuses the message otherwise.
    public var attachmentIDs: [String]
    /// The index of the submitting event loop, copied into the result so the
    /// gateway can route results back without a lookup.
    public var origin: Int
    /// The caller's correlation id, copied into the result.
    public var token: UInt64
    /// When the gateway received the command (monotonic nanoseconds, 0 when
    /// unknown), copied into the result for the latency stages.
    public var receivedAt: UInt64

    public init(
        sessionID: String, clientMessageID: String, senderRole: String, senderID: String, senderName: String?,
        kind: String, body: String, attachmentIDs: [String] = [], origin: Int, token: UInt64, receivedAt: UInt64 = 0
    ) {
        self.sessionID = sessionID
        self.clientMessageID = clientMessageID
        self.senderRole = senderRole
        self.senderID = senderID
        self.senderName = senderName
        self.kind = kind
        self.body = body
        self.attachmentIDs = attachmentIDs
        self.origin = origin
        self.token = token
        self.receivedAt = receivedAt
    }

    /// Why PostgreSQL would refuse this command, or nil. Checked at submit so
    /// that one bad command is refused alone instead of failing its whole batch
    /// (every command of a batch shares one statement).
    public var invalidReason: String? {
        if !Self.isUUIDText(sessionID) { return "session_id is not a UUID" }
        // PostgreSQL text cannot hold NUL.
        if Self.containsNUL(clientMessageID) { return "client_msg_id contains a NUL byte" }
        if Self.containsNUL(senderRole) { return "sender role contains a NUL byte" }
        if Self.containsNUL(senderID) { return "sender id contains a NUL byte" }
        if let senderName, Self.containsNUL(senderName) { return "sender name contains a NUL byte" }
        if Self.containsNUL(kind) { return "kind contains a NUL byte" }
        if Self.containsNUL(body) { return "body contains a NUL byte" }
        if !attachmentIDs.isEmpty, let reason = Self.attachmentProblem(attachmentIDs) { return reason }
        return nil
    }

    /// The ids go to the function joined by commas and cast to `uuid[]`: one
    /// that is not UUID text would fail the whole batch. A repeated id would
    /// be listed twice in the stored message.
    static func attachmentProblem(_ ids: [String]) -> String? {
        for (index, id) in ids.enumerated() {
            guard isUUIDText(id) else { return "attachment id \(index + 1) is not a UUID" }
            for earlier in ids[..<index] where earlier.lowercased() == id.lowercased() {
                return "attachment \(id) is listed twice"
            }
        }
        return nil
    }

    /// The canonical form only (hex digits, either case, dashes at 8, 13, 18, 23).
    static func isUUIDText(_ text: String) -> Bool {
        // The parse the encoder sends the session id with: what passes here encodes.
        UUIDText.value(text) != nil
    }

    static func containsNUL(_ text: String) -> Bool {
        if let found = text.utf8.withContiguousStorageIfAvailable({ $0.contains(0) }) { return found }
        return text.utf8.contains(0)
    }
}

/// What `BatchWriter.submit` did with a command.
public enum SubmitOutcome: Sendable, Equatable {
    /// Queued; exactly one result will follow through the sink.
    case accepted
    /// The queue is full: refused at once, retry later (protocol `overloaded`).
    case overloaded
    /// The writer is not connected (reconnecting, or stopped): not stored
    /// (protocol `unavailable`).
    case unavailable
    /// PostgreSQL could not take the command as it is (protocol `bad_request`).
    case invalid(String)
}
