import SwitchboardChat
import Synchronization

/// What this node knows of recently used sessions, so that a committed
/// message can be announced to the inbox (`session.updated`) without a query.
/// Filled by every create, join, assign and close; bounded, and a miss only
/// costs a query.
final class SessionDirectory: Sendable {
    private let entries = Mutex<[String: SessionInfo]>([:])
    private let capacity: Int

    init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// Called on reader threads with what a query just read, never on a loop:
    /// the lock is shared with the writer's `apply`, and eviction rebuilds the table.
    func remember(_ sessions: some Sequence<SessionInfo>) {
        entries.withLock { entries in
            for session in sessions {
                if entries.count >= capacity && entries[session.id] == nil {
                    // Rare: forget an arbitrary half rather than track recency on every message.
                    let keep = entries.keys.prefix(capacity / 2)
                    entries = Dictionary(uniqueKeysWithValues: keep.map { ($0, entries[$0]!) })
                }
                entries[session.id] = session
            }
        }
    }

    func remember(_ session: SessionInfo) {
        remember(CollectionOfOne(session))
    }

    /// Folds a batch's committed messages into their sessions' summaries, under one lock:
    /// the changed summaries (one per session), and the sessions not known here.
    func apply(_ messages: [ChatMessage]) -> (updated: [SessionInfo], unknown: Set<String>) {
        entries.withLock { entries in
            var updated: [String: SessionInfo] = [:]
            var unknown = Set<String>()
            for message in messages {
                guard var session = entries[message.sessionID] else {
                    unknown.insert(message.sessionID)
                    continue
                }
                if message.seq > session.lastSeq || session.lastMessage == nil {
                    session.lastSeq = max(session.lastSeq, message.seq)
                    session.lastMessage = LastMessage(
                        seq: message.seq, body: message.body, senderRole: message.sender.role,
                        createdAt: message.createdAt)
                    session.updatedAt = message.createdAt
                }
                entries[message.sessionID] = session
                updated[session.id] = session
            }
            return (Array(updated.values), unknown)
        }
    }
}
