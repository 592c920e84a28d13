import SwitchboardAuth
import SwitchboardChat
import SwitchboardWriter

/// The commands that need no database read: join bookkeeping aside, these
/// answer at once or hand the work to the writer.
extension ChatConnection {
    func dispatch(_ request: ClientRequest, as identity: Identity) {
        let ref = request.ref
        switch request.frame {
        case .hello:
            fail(ChatError(.badRequest, "already authenticated", ref: ref))
        case .ping:
            reply(hub.encoder.pong(ref: ref))
        case .sessionCreate(let title):
            if let error = Access.requireVisitor(identity, action: "session.create", ref: ref) { return fail(error) }
            guard subscriptions.count + pendingCreates < settings.maxJoinedSessions else { return failJoinLimit(ref) }
            createSession(title: title, ref: ref, as: identity)
        case .join(let sessionID, let sinceSeq):
            guard subscriptions[sessionID] != nil || subscriptions.count + pendingCreates < settings.maxJoinedSessions
            else {
                return failJoinLimit(ref)
            }
            join(sessionID, since: sinceSeq ?? 0, ref: ref, as: identity)
        case .leave(let sessionID):
            if let subscription = subscriptions.removeValue(forKey: sessionID) { hub.remove(subscription) }
            reply(hub.encoder.left(ref: ref, sessionID: sessionID))
        case .send(let sessionID, let clientMessageID, let body, let kind):
            guard requireJoined(sessionID, ref: ref) else { return }
            send(sessionID, clientMessageID: clientMessageID, body: body, kind: kind, ref: ref, as: identity)
        case .typing(let sessionID, let state):
            guard requireJoined(sessionID, ref: ref) else { return }
            let frame = SharedFrame(
                payload: hub.encoder.typing(sessionID: sessionID, sender: participant, state: state))
            var delivery = LoopDelivery()
            delivery.sessionFrames.append(
                SessionFrame(sessionID: sessionID, seq: nil, excludedConnection: serial, frame: frame))
            service.broadcast(delivery, fromLoop: hub.loop.index)
        case .read(let sessionID, let seq):
            guard requireJoined(sessionID, ref: ref) else { return }
            recordRead(sessionID, seq: seq, ref: ref, as: identity)
        case .inboxSubscribe:
            if let error = Access.requireStaff(identity, action: "inbox.subscribe", ref: ref) { return fail(error) }
            subscribeInbox(ref: ref, as: identity)
        case .sessionAssign(let sessionID, let operatorID):
            if let error = Access.requireStaff(identity, action: "session.assign", ref: ref) { return fail(error) }
            assign(sessionID, to: operatorID ?? identity.id, ref: ref, as: identity)
        case .sessionClose(let sessionID):
            close(sessionID, ref: ref, as: identity)
        }
    }

    /// Frames that act inside a session need the connection joined to it,
    /// and the join answered: the answer is where the session's access rule
    /// is checked, so a frame pipelined behind its join is refused.
    private func requireJoined(_ sessionID: String, ref: String?) -> Bool {
        guard let subscription = subscriptions[sessionID] else {
            fail(ChatError(.forbidden, "join session \(sessionID) before using it", ref: ref))
            return false
        }
        guard subscription.accessChecked else {
            fail(ChatError(.forbidden, "session \(sessionID): wait for the join's answer before using it", ref: ref))
            return false
        }
        return true
    }

    private func failJoinLimit(_ ref: String?) {
        fail(
            ChatError(
                .badRequest, "a connection may be joined to at most \(settings.maxJoinedSessions) sessions", ref: ref))
    }

    // MARK: send

    private func send(
        _ sessionID: String, clientMessageID: String, body: String, kind: String, ref: String?, as identity: Identity
    ) {
        let pending = PendingSend(connection: serial, ref: ref, sessionID: sessionID)
        let token = hub.awaitCommit(pending)
        let command = WriteCommand(
            sessionID: sessionID, clientMessageID: clientMessageID, senderRole: identity.role.rawValue,
            senderID: identity.id, senderName: identity.name, kind: kind, body: body, origin: hub.loop.index,
            token: token)
        switch service.writer.submit(command) {
        case .accepted:
            break
        case .overloaded:
            hub.abandon(token: token)
            fail(ChatError(.overloaded, "the write queue is full; retry later", ref: ref))
        case .unavailable:
            hub.abandon(token: token)
            fail(ChatError(.unavailable, "the database is unreachable; the message was not stored", ref: ref))
        case .invalid(let reason):
            hub.abandon(token: token)
            fail(ChatError(.badRequest, reason, ref: ref))
        }
    }

    /// The writer's verdict on one of this connection's sends.
    func committed(_ outcome: WriteOutcome, for pending: PendingSend) {
        let ref = pending.ref
        switch outcome {
        case .stored(let stored), .duplicate(let stored):
            var duplicate = false
            if case .duplicate = outcome { duplicate = true }
            reply(
                hub.encoder.ack(
                    ref: ref, sessionID: stored.sessionID, clientMessageID: stored.clientMessageID, seq: stored.seq,
                    id: stored.id, createdAt: stored.createdAt,
                    duplicate: duplicate))
        case .noSession:
            fail(ChatError(.notFound, "session \(pending.sessionID) does not exist", ref: ref))
        case .unavailable:
            fail(
                ChatError(
                    .unavailable, "the database is unreachable; not acknowledged, retry with the same client_msg_id",
                    ref: ref))
        case .failed(let reason):
            service.logger.error("a message batch was refused by the database: \(reason)")
            fail(
                ChatError(
                    .unavailable, "the message could not be stored; retry with the same client_msg_id", ref: ref))
        }
    }
}
