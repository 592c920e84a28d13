import SwitchboardAttachments
import SwitchboardAuth
import SwitchboardChat
import SwitchboardSystem
import SwitchboardWriter

/// `send`: handed to the store at once, answered after the commit. The ack
/// and the message frame of every send are encoded here, on the loop.
extension ChatCore {
    func send(
        _ id: UInt64, _ sessionID: String, clientMessageID: String, body: String, kind: String,
        attachments: [String] = [], ref: String?, as identity: Identity, receivedAt: UInt64 = 0
    ) {
        nextToken &+= 1
        let token = nextToken
        let command = WriteCommand(
            sessionID: sessionID, clientMessageID: clientMessageID, senderRole: identity.role.rawValue,
            senderID: identity.id, senderName: identity.name, kind: kind, body: body, attachmentIDs: attachments,
            origin: loopIndex, token: token, receivedAt: receivedAt)
        switch store.submit(command) {
        case .accepted:
            pendingSends[token] = PendingSend(connection: id, ref: ref, sessionID: sessionID)
        case .overloaded:
            fail(id, ChatError(.overloaded, "the write queue is full; retry later", ref: ref))
        case .unavailable:
            fail(id, ChatError(.unavailable, "the database is unreachable; the message was not stored", ref: ref))
        case .invalid(let reason):
            fail(id, ChatError(.badRequest, reason, ref: ref))
        }
    }

    /// A batch the store has finished (every loop gets every batch): the
    /// answers to this loop's sends, then the new messages to this loop's subscribers.
    /// `stored` is the batch's messages as `CommittedMessages` reads them,
    /// built once per batch for every core (and the cluster bus).
    package func committed(_ batch: WriterBatchResult, _ stored: CommittedMessages? = nil) {
        let startedAt = batch.finishedAt > 0 ? MonotonicClock.nanoseconds() : 0
        for result in batch.results where result.origin == loopIndex {
            if let pending = pendingSends.removeValue(forKey: result.token) { answer(pending, result.outcome) }
        }
        let stored = stored ?? CommittedMessages(batch)
        if !stored.messages.isEmpty { deliverCommitted(stored.messages, sessions: stored.sessions) }
        if startedAt > 0 { timeStages(batch, startedAt: startedAt) }
    }

    /// The loop's stages of a batch (docs/benchmarks.md, "Latency"): its
    /// hand-off now, and once its frames are written, its delivery and the
    /// whole time of this loop's sends in it.
    private func timeStages(_ batch: WriterBatchResult, startedAt: UInt64) {
        let stages = metrics.sendStages
        let count = batch.results.count
        stages.observe(.handoff, nanoseconds: startedAt &- min(startedAt, batch.finishedAt), count: count)
        let loopIndex = loopIndex
        loop.afterWrites {
            let writtenAt = MonotonicClock.nanoseconds()
            stages.observeMany { observe in
                observe(.deliver, writtenAt - startedAt, count)
                for result in batch.results where result.origin == loopIndex && result.receivedAt > 0 {
                    observe(.total, writtenAt &- min(writtenAt, result.receivedAt), 1)
                }
            }
        }
    }

    private func answer(_ pending: PendingSend, _ outcome: WriteOutcome) {
        let id = pending.connection
        let ref = pending.ref
        switch outcome {
        case .stored(let row):
            reply(id, ack(row, ref: ref, duplicate: false))
        case .duplicate(let row):
            reply(id, ack(row, ref: ref, duplicate: true))
        case .noSession:
            fail(id, ChatError(.notFound, "session \(pending.sessionID) does not exist", ref: ref))
        case .badAttachment(let attachmentID):
            fail(
                id,
                ChatError(
                    .badRequest,
                    "attachment \(attachmentID) is not an upload of yours to session \(pending.sessionID) "
                        + "that no message has sent yet; nothing was stored",
                    ref: ref))
        case .unavailable:
            fail(
                id,
                ChatError(
                    .unavailable, "the database is unreachable; not acknowledged, retry with the same client_msg_id",
                    ref: ref))
        case .failed(let reason):
            logger.error("a message batch was refused by the database: \(reason)")
            fail(
                id,
                ChatError(.unavailable, "the message could not be stored; retry with the same client_msg_id", ref: ref))
        }
    }

    private func ack(_ row: StoredMessage, ref: String?, duplicate: Bool) -> [UInt8] {
        encoder.ack(
            ref: ref, sessionID: row.sessionID, clientMessageID: row.clientMessageID, seq: row.seq, id: row.id,
            createdAt: row.createdAt, duplicate: duplicate)
    }
}

/// A batch's stored messages, and the state each changed session was left in.
package struct CommittedMessages: Sendable {
    package let messages: [ChatMessage]
    package let sessions: [SessionInfo]

    package init(messages: [ChatMessage], sessions: [SessionInfo]) {
        self.messages = messages
        self.sessions = sessions
    }

    package init(_ batch: WriterBatchResult) {
        // An event precedes the message that caused it: first, so that every
        // session's messages stay in seq order.
        var messages: [ChatMessage] = batch.events.map { ChatMessage($0) }
        var sessions: [SessionInfo] = []
        for result in batch.results {
            guard case .stored(let row) = result.outcome else { continue }
            let message = ChatMessage(row)
            messages.append(message)
            if let state = row.session { sessions.append(SessionInfo(state, after: message)) }
        }
        self.messages = messages
        self.sessions = sessions
    }
}

extension ChatMessage {
    /// A row as the writer returned it (its timestamp already in RFC 3339,
    /// its attachments as `chats.attachments` holds them: a list that does
    /// not decode, which only a schema this build does not know writes, is
    /// dropped rather than holding up the batch's other messages).
    package init(_ stored: StoredMessage) {
        self.init(
            id: stored.id, sessionID: stored.sessionID, seq: stored.seq, clientMessageID: stored.clientMessageID,
            kind: stored.kind, body: stored.body,
            sender: Participant(id: stored.senderID, role: stored.senderRole, name: stored.senderName),
            createdAt: stored.createdAt, meta: stored.meta,
            attachments: stored.attachments.flatMap(AttachmentObject.decodeList) ?? [])
    }
}

extension SessionInfo {
    /// The session as a batch left it: its state from the writer, `message` its newest.
    package init(_ state: StoredSession, after message: ChatMessage) {
        self.init(
            id: message.sessionID, workspaceID: state.workspaceID, visitorID: state.visitorID, title: state.title,
            status: SessionStatus(rawValue: state.status) ?? .open,
            assignedOperator: state.operatorID.map { AssignedOperator(id: $0, name: state.operatorName) },
            lastSeq: message.seq,
            lastMessage: LastMessage(
                seq: message.seq, body: message.body, senderRole: message.sender.role, createdAt: message.createdAt),
            createdAt: state.createdAt, updatedAt: state.updatedAt, version: state.version,
            waitingSince: state.waitingSince, contact: state.contact)
    }
}
