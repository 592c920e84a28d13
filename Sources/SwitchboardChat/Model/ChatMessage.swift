import SwitchboardAttachments

/// One stored message, as the `message` frame and history replies carry it.
public struct ChatMessage: Sendable, Equatable {
    /// The row's id (UUID text).
    public var id: String
    public var sessionID: String
    public var seq: Int64
    public var clientMessageID: String
    public var kind: String
    public var body: String
    public var sender: Participant
    /// RFC 3339 in UTC with milliseconds, e.g. `2026-11-22T08:00:01.234Z`.
    public var createdAt: String
    /// For `kind` `event` (a system line the gateway stores: assigned,
    /// closed, reopened, ...), the structured change as JSON text, written
    /// by the database and sent as it is. Nil for what people send.
    public var meta: String?
    /// The uploads it sent, in the sender's order (`chats.attachments`);
    /// empty for most messages. Their URLs are signed when it is encoded.
    public var attachments: [AttachmentObject]

    public init(
        id: String, sessionID: String, seq: Int64, clientMessageID: String, kind: String, body: String,
        sender: Participant, createdAt: String, meta: String? = nil, attachments: [AttachmentObject] = []
    ) {
        self.id = id
        self.sessionID = sessionID
        self.seq = seq
        self.clientMessageID = clientMessageID
        self.kind = kind
        self.body = body
        self.sender = sender
        self.createdAt = createdAt
        self.meta = meta
        self.attachments = attachments
    }

    /// The kind of the system lines only the gateway writes (`meta` says what changed).
    public static let eventKind = "event"
    /// A private note: operators and admins send it and only they ever get it.
    public static let noteKind = "note"

    /// Whether only operators and admins may see this message.
    public var isNote: Bool { kind == Self.noteKind }
}
