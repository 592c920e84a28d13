import Foundation
import SwitchboardAttachments
import SwitchboardChat
import SwitchboardReaders
import SwitchboardSystem
import SwitchboardWriter

@testable import SwitchboardChatCore

/// The chat core's database in memory: its `MessageStore` (sends wait in
/// `pending` until a test commits them) and the `SessionQueries` its fake
/// readers run. Used on the test's thread only (hence `@unchecked Sendable`).
final class MemoryDatabase: MessageStore, SessionQueries, @unchecked Sendable {
    private(set) var sessions: [String: SessionInfo] = [:]
    private(set) var messages: [String: [ChatMessage]] = [:]
    /// Submitted commands and when each was accepted (monotonic nanoseconds).
    private var submitted: [(command: WriteCommand, acceptedAt: UInt64)] = []
    var pending: [WriteCommand] { submitted.map(\.command) }
    private var reads: [String: Int64] = [:]
    /// What `submit` answers instead of queueing, when set.
    var refuseSubmits: SubmitOutcome?
    private var clock = 0
    /// Rows per `recordOperators` call, in order.
    private(set) var operatorWrites: [Int] = []
    /// Operators seen (`recordOperators`): id -> name.
    private(set) var operators: [String: String?] = [:]
    /// Events stored by the batch being committed (a visitor reopening a closed session).
    private var batchEvents: [StoredMessage] = []
    /// Uploads by id, as the attachment store leaves them, and which message sent each.
    private var uploads: [String: Upload] = [:]

    struct Upload {
        var sessionID: String
        var uploaderRole: String
        var uploaderID: String
        var object: AttachmentObject
        var messageID: String?
    }

    /// An upload committed to `sessionID` by `role`/`uploader`.
    func upload(_ object: AttachmentObject, to sessionID: String, by role: String, _ uploader: String) {
        uploads[object.id] = Upload(sessionID: sessionID, uploaderRole: role, uploaderID: uploader, object: object)
    }

    /// The message that sent an upload, if one did.
    func messageID(ofUpload id: String) -> String? { uploads[id]?.messageID }

    // MARK: MessageStore

    func submit(_ command: WriteCommand) -> SubmitOutcome {
        if let refuseSubmits { return refuseSubmits }
        submitted.append((command, MonotonicClock.nanoseconds()))
        return .accepted
    }

    /// Stores what was submitted, as one batch, the way the writer numbers it:
    /// each changed session's version grows once, and its state rides on its
    /// last stored message of the batch.
    func commitPending() -> WriterBatchResult {
        let commands = submitted
        submitted = []
        let sentAt = MonotonicClock.nanoseconds()
        var results = commands.map { command, acceptedAt in
            WriteResult(
                origin: command.origin, token: command.token, outcome: store(command),
                receivedAt: command.receivedAt, acceptedAt: acceptedAt)
        }
        var seen = Set<String>()
        for index in results.indices.reversed() {
            guard case .stored(var row) = results[index].outcome, seen.insert(row.sessionID).inserted,
                var session = sessions[row.sessionID]
            else { continue }
            session.version += 1
            sessions[row.sessionID] = session
            row.session = StoredSession(
                version: session.version, workspaceID: session.workspaceID, status: session.status.rawValue,
                title: session.title, visitorID: session.visitorID, operatorID: session.assignedOperator?.id,
                operatorName: session.assignedOperator?.name, createdAt: session.createdAt,
                updatedAt: session.updatedAt, waitingSince: session.waitingSince, contact: session.contact)
            results[index].outcome = .stored(row)
        }
        defer { batchEvents = [] }
        return WriterBatchResult(
            results: results, events: batchEvents, commitLatencyMicroseconds: 0, sentAt: sentAt,
            finishedAt: MonotonicClock.nanoseconds())
    }

    private func store(_ command: WriteCommand) -> WriteOutcome {
        guard var session = sessions[command.sessionID] else { return .noSession }
        if let earlier = messages[command.sessionID]?.first(where: { $0.clientMessageID == command.clientMessageID }) {
            return .duplicate(Self.row(earlier))
        }
        // As migration 12's writer: every attachment an unsent upload of the sender's to this session.
        for id in command.attachmentIDs {
            guard let upload = uploads[id], upload.sessionID == command.sessionID,
                upload.uploaderRole == command.senderRole, upload.uploaderID == command.senderID,
                upload.messageID == nil
            else { return .badAttachment(id) }
        }
        if session.status == .closed && command.senderRole == "visitor" {
            // As migration 8's writer: reopened, unassigned, the event just before the message.
            session.status = .open
            session.assignedOperator = nil
            session.waitingSince = nil
            session.lastSeq += 1
            let event = ChatMessage(
                id: UUID().uuidString.lowercased(), sessionID: command.sessionID, seq: session.lastSeq,
                clientMessageID: "event:\(session.lastSeq)", kind: ChatMessage.eventKind,
                body: "The conversation was reopened",
                sender: Participant(id: command.senderID, role: "visitor", name: command.senderName),
                createdAt: timestamp(), meta: #"{"action":"reopened","reason":"visitor_message"}"#)
            messages[command.sessionID, default: []].append(event)
            var row = Self.row(event)
            row.meta = event.meta
            batchEvents.append(row)
        }
        session.lastSeq += 1
        let message = ChatMessage(
            id: UUID().uuidString.lowercased(), sessionID: command.sessionID, seq: session.lastSeq,
            clientMessageID: command.clientMessageID, kind: command.kind, body: command.body,
            sender: Participant(id: command.senderID, role: command.senderRole, name: command.senderName),
            createdAt: timestamp(), attachments: command.attachmentIDs.compactMap { uploads[$0]?.object })
        for id in command.attachmentIDs { uploads[id]?.messageID = message.id }
        messages[command.sessionID, default: []].append(message)
        session.lastMessage = LastMessage(
            seq: message.seq, body: message.body, senderRole: message.sender.role, createdAt: message.createdAt)
        session.updatedAt = message.createdAt
        // As migration 9's writer: a visitor's message starts the wait of an open, unassigned session.
        if command.senderRole == "visitor" && session.status == .open && session.assignedOperator == nil
            && session.waitingSince == nil
        {
            session.waitingSince = message.createdAt
        }
        sessions[command.sessionID] = session
        return .stored(Self.row(message))
    }

    private static func row(_ message: ChatMessage) -> StoredMessage {
        StoredMessage(
            id: message.id, sessionID: message.sessionID, seq: message.seq, createdAt: message.createdAt,
            clientMessageID: message.clientMessageID, senderRole: message.sender.role, senderID: message.sender.id,
            senderName: message.sender.name, kind: message.kind, body: message.body,
            attachments: message.attachments.isEmpty ? nil : AttachmentObject.storedJSON(message.attachments))
    }

    /// Distinct, increasing timestamps, as RFC 3339 text compares.
    private func timestamp() -> String {
        clock += 1
        return String(format: "2026-11-23T08:%02d:%02d.000Z", clock / 60 % 60, clock % 60)
    }

    /// The session is deleted: it answers `not_found` from now on.
    func forget(_ sessionID: String) { sessions[sessionID] = nil }

    // MARK: SessionQueries

    func createSession(
        workspaceID: String, visitorID: String, title: String?, context: String? = nil, contact: String? = nil
    ) throws(QueryError) -> SessionInfo {
        let now = timestamp()
        let session = SessionInfo(
            id: UUID().uuidString.lowercased(), workspaceID: workspaceID, visitorID: visitorID,
            title: title ?? "New chat", status: .open, assignedOperator: nil, lastSeq: 0, lastMessage: nil,
            createdAt: now, updatedAt: now, contact: contact.map { #"{"verified": \#($0)}"# }, context: context)
        sessions[session.id] = session
        return session
    }

    func session(id: String) throws(QueryError) -> SessionInfo? { sessions[id] }

    /// As `ChatQueries.recordContact`: merged into `contact`, for the session's own visitor.
    func recordContact(sessionID: String, visitorID: String, email: String) throws(QueryError) -> SessionInfo? {
        guard var session = sessions[sessionID], session.visitorID == visitorID else { return nil }
        session.contact = #"{"email": "\#(email)"}"#
        session.version += 1
        sessions[sessionID] = session
        return session
    }

    /// As `ChatQueries.recordCsat`: once, on the visitor's own closed session (every workspace asks).
    func recordCsat(
        sessionID: String, visitorID: String, rating: Int, comment: String?
    ) throws(QueryError) -> Result<SessionInfo, CsatRefusal> {
        guard var session = sessions[sessionID], session.visitorID == visitorID else { return .failure(.notFound) }
        guard session.status == .closed else { return .failure(.notClosed) }
        guard session.csat == nil else { return .failure(.alreadyRated) }
        session.csat = #"{"rating": \#(rating)}"#
        session.version += 1
        sessions[sessionID] = session
        return .success(session)
    }

    /// How many times messages were read (the sweep must not read a session that is not behind).
    private(set) var messageReads = 0

    func messages(sessionID: String, afterSeq: Int64, limit: Int, withNotes: Bool) throws(QueryError) -> [ChatMessage] {
        messageReads += 1
        let after = (messages[sessionID] ?? []).filter { $0.seq > afterSeq && (withNotes || !$0.isNote) }
        return Array(after.prefix(max(0, limit)))
    }

    /// Statements `recordReads` ran, and the positions each carried.
    private(set) var readStatements: [[ReadPosition]] = []

    func recordReads(_ positions: [ReadPosition]) throws(QueryError) -> [Int64?] {
        readStatements.append(positions)
        return positions.map { position in
            guard let session = sessions[position.sessionID] else { return nil }
            let key = position.sessionID + "/" + position.readerID
            let stored = max(reads[key] ?? 0, min(max(position.seq, 0), session.lastSeq))
            reads[key] = stored
            return stored
        }
    }

    func inbox(
        workspaceID: String, statuses: [SessionStatus], limit: Int, cursor: String?
    ) throws(QueryError) -> InboxPage {
        let listed = sessions.values.filter { $0.workspaceID == workspaceID && statuses.contains($0.status) }
        return InboxPage(sessions: Array(listed.sorted { $0.createdAt > $1.createdAt }.prefix(limit)), nextCursor: nil)
    }

    /// As `switchboard_change_session` (migration 8), with the action as the event's body.
    func changeSession(
        sessionID: String, _ change: SessionChangeRequest, by actor: Participant
    ) throws(QueryError) -> SessionChange? {
        guard var session = sessions[sessionID] else { return nil }
        let before = session
        switch (change.assignment, change.status) {
        case (.to(let id, let name)?, _):
            let known = before.assignedOperator?.id == id ? before.assignedOperator?.name : operators[id] ?? nil
            session.assignedOperator = AssignedOperator(id: id, name: name ?? known)
            session.status = .assigned
        case (.nobody?, _):
            session.assignedOperator = nil
            if session.status == .assigned { session.status = .open }
        case (nil, .open?):
            session.status = .open
            session.assignedOperator = nil
        case (nil, .closed?):
            session.status = .closed
        case (nil, .assigned?):
            session.assignedOperator = session.assignedOperator ?? AssignedOperator(id: actor.id, name: actor.name)
            session.status = .assigned
        case (nil, nil):
            break
        }
        if let title = change.title { session.title = title }
        guard session != before else { return SessionChange(session: before, event: nil, changed: false) }
        let action: String? =
            if before.status == .closed && session.status == .open {
                "reopened"
            } else if before.status != .closed && session.status == .closed {
                "closed"
            } else if before.assignedOperator?.id != session.assignedOperator?.id {
                session.assignedOperator == nil ? "unassigned" : "assigned"
            } else {
                nil
            }
        session.version += 1
        session.updatedAt = timestamp()
        var event: ChatMessage?
        if let action {
            session.lastSeq += 1
            event = ChatMessage(
                id: UUID().uuidString.lowercased(), sessionID: sessionID, seq: session.lastSeq,
                clientMessageID: "event:\(session.lastSeq)", kind: ChatMessage.eventKind, body: action, sender: actor,
                createdAt: session.updatedAt, meta: #"{"action":"\#(action)"}"#)
            messages[sessionID, default: []].append(event!)
        }
        sessions[sessionID] = session
        return SessionChange(session: session, event: event, changed: true)
    }

    func recordOperators(_ sightings: [OperatorSighting]) throws(QueryError) {
        operatorWrites.append(sightings.count)
        for sighting in sightings { operators[sighting.staff.id] = sighting.staff.name }
    }
}
