/// A stored message as PostgreSQL returned it after the commit.
public struct StoredMessage: Sendable, Equatable {
    /// The row's id (UUID text).
    public var id: String
    public var sessionID: String
    /// The message's place in its session: 1, 2, 3, ... with no gaps.
    public var seq: Int64
    /// `created_at` in RFC 3339, UTC, milliseconds (`2026-11-22T08:00:01.234Z`),
    /// formatted by PostgreSQL as the readers format theirs, whatever the
    /// connection's DateStyle.
    public var createdAt: String
    public var clientMessageID: String
    public var senderRole: String
    public var senderID: String
    public var senderName: String?
    public var kind: String
    public var body: String
    /// The session as the batch left it, on the batch's last stored message
    /// of the session (nil on the others, and on duplicates).
    public var session: StoredSession?
    /// An event's structured change (JSON text); nil for what clients send.
    public var meta: String?
    /// The attachments it sent: a JSON array of objects (`chats.attachments`,
    /// migration 12: id, filename, content_type, size, sha256, width, height,
    /// thumbnail), as PostgreSQL wrote it; nil when it sent none.
    public var attachments: String?

    public init(
        id: String, sessionID: String, seq: Int64, createdAt: String, clientMessageID: String, senderRole: String,
        senderID: String, senderName: String?, kind: String, body: String, session: StoredSession? = nil,
        meta: String? = nil, attachments: String? = nil
    ) {
        self.id = id
        self.sessionID = sessionID
        self.seq = seq
        self.createdAt = createdAt
        self.clientMessageID = clientMessageID
        self.senderRole = senderRole
        self.senderID = senderID
        self.senderName = senderName
        self.kind = kind
        self.body = body
        self.session = session
        self.meta = meta
        self.attachments = attachments
    }
}

/// A session's state right after a batch stored messages in it.
public struct StoredSession: Sendable, Equatable {
    /// Grows with every change of the session (migration 7).
    public var version: Int64
    /// UUID text.
    public var workspaceID: String
    public var status: String
    public var title: String
    /// nil for sessions adopted from before sessions existed.
    public var visitorID: String?
    public var operatorID: String?
    public var operatorName: String?
    /// RFC 3339, UTC, milliseconds.
    public var createdAt: String
    public var updatedAt: String
    /// RFC 3339: since when its visitor waits for an operator (migration 9); nil when not waiting.
    public var waitingSince: String?
    /// What the visitor said about itself, as JSON text; nil when nothing.
    public var contact: String?

    public init(
        version: Int64, workspaceID: String, status: String, title: String, visitorID: String?, operatorID: String?,
        operatorName: String?, createdAt: String, updatedAt: String, waitingSince: String? = nil,
        contact: String? = nil
    ) {
        self.version = version
        self.workspaceID = workspaceID
        self.status = status
        self.title = title
        self.visitorID = visitorID
        self.operatorID = operatorID
        self.operatorName = operatorName
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.waitingSince = waitingSince
        self.contact = contact
    }
}

/// The fate of one accepted command.
public enum WriteOutcome: Sendable, Equatable {
    /// Committed as a new message.
    case stored(StoredMessage)
    /// The session already holds this client_msg_id: the original row (nothing new stored).
    case duplicate(StoredMessage)
    /// The session does not exist or was deleted (protocol `not_found`).
    case noSession
    /// Not stored: this attachment (the first of the command's that failed)
    /// is not an upload of the sender's to this session that no message has
    /// sent yet (protocol `bad_request`).
    case badAttachment(String)
    /// The connection was lost or the writer stopped before a commit was seen.
    /// The message may or may not be stored; a retry with the same
    /// client_msg_id is safe (it returns the row as a duplicate if it was).
    case unavailable
    /// The server refused the batch (a bug or a broken schema, not the client's doing).
    case failed(String)
}

/// One command's result, addressed back to its submitter.
public struct WriteResult: Sendable, Equatable {
    public var origin: Int
    public var token: UInt64
    public var outcome: WriteOutcome
    /// The command's `receivedAt`, and when the writer accepted it
    /// (monotonic nanoseconds; 0 when unknown).
    public var receivedAt: UInt64
    public var acceptedAt: UInt64

    public init(origin: Int, token: UInt64, outcome: WriteOutcome, receivedAt: UInt64 = 0, acceptedAt: UInt64 = 0) {
        self.origin = origin
        self.token = token
        self.outcome = outcome
        self.receivedAt = receivedAt
        self.acceptedAt = acceptedAt
    }
}

/// Everything one batch produced, delivered to the sink in one call so the
/// gateway can group results per loop instead of waking loops per message.
public struct WriterBatchResult: Sendable {
    public var results: [WriteResult]
    /// Events the batch stored besides its commands' messages (a closed
    /// session reopened by a visitor's message), each at the seq just before
    /// the message that caused it.
    public var events: [StoredMessage]
    /// From sending the batch to its commit, for a batch that committed.
    public var commitLatencyMicroseconds: Int?
    /// When the batch was sent and when its commit (or failure) returned,
    /// in monotonic nanoseconds (0 for commands answered without a batch).
    public var sentAt: UInt64
    public var finishedAt: UInt64
    /// Messages the batch handed to the webhook backlog, committed with them
    /// (at most: duplicates and refused sends have no event): when above 0,
    /// the webhook expander has work (docs/webhooks.md, "The outbox").
    public var webhookBacklog: Int

    public init(
        results: [WriteResult], events: [StoredMessage] = [], commitLatencyMicroseconds: Int? = nil,
        sentAt: UInt64 = 0, finishedAt: UInt64 = 0, webhookBacklog: Int = 0
    ) {
        self.results = results
        self.events = events
        self.commitLatencyMicroseconds = commitLatencyMicroseconds
        self.sentAt = sentAt
        self.finishedAt = finishedAt
        self.webhookBacklog = webhookBacklog
    }
}
