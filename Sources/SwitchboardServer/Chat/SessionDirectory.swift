import SwitchboardChat

/// What one loop knows of recently used sessions, so that a committed
/// message can be announced to the inbox (`session.updated`) without a query.
/// Filled by every create, join, inbox page and session change the loop
/// sees; bounded, and a miss only costs a query. Loop-confined, like its core.
struct SessionDirectory {
    private var entries: [String: SessionInfo] = [:]
    private let capacity: Int

    init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    subscript(sessionID: String) -> SessionInfo? { entries[sessionID] }

    /// Keeps what a query or an event says of `session`. A summary read
    /// before a message this loop has already applied keeps that message.
    mutating func remember(_ session: SessionInfo) {
        var session = session
        if let known = entries[session.id], known.lastSeq > session.lastSeq {
            session.lastSeq = known.lastSeq
            session.lastMessage = known.lastMessage
            session.updatedAt = max(session.updatedAt, known.updatedAt)
        } else if entries.count >= capacity && entries[session.id] == nil {
            // Rare: forget an arbitrary half rather than track recency on every message.
            let keep = entries.keys.prefix(capacity / 2)
            entries = Dictionary(uniqueKeysWithValues: keep.map { ($0, entries[$0]!) })
        }
        entries[session.id] = session
    }

    /// Folds a committed message into its session's summary; returns the
    /// summary, or nil when the session is not known here.
    mutating func apply(_ message: ChatMessage) -> SessionInfo? {
        guard var session = entries[message.sessionID] else { return nil }
        if message.seq > session.lastSeq || session.lastMessage == nil {
            session.lastSeq = max(session.lastSeq, message.seq)
            session.lastMessage = LastMessage(
                seq: message.seq, body: message.body, senderRole: message.sender.role, createdAt: message.createdAt)
            session.updatedAt = message.createdAt
            entries[message.sessionID] = session
        }
        return session
    }
}
