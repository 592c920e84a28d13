/// A session's lifecycle (chat_sessions.status).
public enum SessionStatus: String, Sendable, Equatable, CaseIterable {
    case open
    case assigned
    case closed
}

/// The operator a session is assigned to.
public struct AssignedOperator: Sendable, Equatable {
    public var id: String
    public var name: String?

    public init(id: String, name: String?) {
        self.id = id
        self.name = name
    }
}

/// The newest message of a session, as inbox rows and `session.updated` show it.
public struct LastMessage: Sendable, Equatable {
    public var seq: Int64
    public var body: String
    public var senderRole: String
    /// RFC 3339 in UTC with milliseconds.
    public var createdAt: String

    public init(seq: Int64, body: String, senderRole: String, createdAt: String) {
        self.seq = seq
        self.body = body
        self.senderRole = senderRole
        self.createdAt = createdAt
    }
}

/// One session (a conversation), as `session`, `inbox` and `session.updated` frames carry it.
public struct SessionInfo: Sendable, Equatable {
    /// UUID text, lower case.
    public var id: String
    public var workspaceID: String
    /// The visitor who opened it (chat_sessions.user_id); nil for adopted legacy sessions.
    public var visitorID: String?
    public var title: String
    public var status: SessionStatus
    public var assignedOperator: AssignedOperator?
    public var lastSeq: Int64
    public var lastMessage: LastMessage?
    /// RFC 3339 in UTC with milliseconds.
    public var createdAt: String
    public var updatedAt: String
    /// Grows with every change of the session (docs/protocol.md, "Ordering,
    /// delivery and retries"): of two states, the one with the higher version is newer.
    public var version: Int64
    /// Soft-deleted: announced once, as `session.updated` with `"deleted":true`.
    public var deleted: Bool
    /// RFC 3339: since when its visitor waits for an operator (routing,
    /// docs/routing.md); kept while assigned, so that a requeue puts it back
    /// in its place in the queue. Nil before the visitor's first message.
    public var waitingSince: String?
    /// What the visitor said about itself (`{"email": ...}`), as JSON text
    /// written by the database; nil when it said nothing.
    public var contact: String?
    /// What the widget reported of its page when the session was opened
    /// (`SessionContext`), as JSON text; self-reported, and never changed.
    /// Only where the session is read from its row (`session.create`'s
    /// answer, the inbox, `GET /api/v1/sessions/{id}`): nil in what the
    /// writer and the bus carry after a message.
    public var context: String?
    /// The visitor's rating of the closed conversation, `{"rating","comment"?,"created_at"}` as JSON
    /// text; nil until it rated. Read from the row, like `context`.
    public var csat: String?
    /// Closed, not rated, and its workspace's survey on: the widget asks for a rating.
    public var csatSurvey: Bool

    /// The asking operator's own read position (`read_seq`), in the HTTP
    /// inbox's pages only: what its unread count starts from. Nil elsewhere.
    public var readSeq: Int64?

    /// Waiting in its workspace's queue for an operator to be assigned.
    public var queued: Bool {
        status == .open && assignedOperator == nil && waitingSince != nil && !deleted
    }

    public init(
        id: String, workspaceID: String, visitorID: String?, title: String, status: SessionStatus,
        assignedOperator: AssignedOperator?, lastSeq: Int64, lastMessage: LastMessage?, createdAt: String,
        updatedAt: String, version: Int64 = 1, deleted: Bool = false, waitingSince: String? = nil,
        contact: String? = nil, context: String? = nil, csat: String? = nil, csatSurvey: Bool = false
    ) {
        self.id = id
        self.workspaceID = workspaceID
        self.visitorID = visitorID
        self.title = title
        self.status = status
        self.assignedOperator = assignedOperator
        self.lastSeq = lastSeq
        self.lastMessage = lastMessage
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
        self.deleted = deleted
        self.waitingSince = waitingSince
        self.contact = contact
        self.context = context
        self.csat = csat
        self.csatSurvey = csatSurvey
    }
}
