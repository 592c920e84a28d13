import SwitchboardAuth
import SwitchboardChat
import SwitchboardReaders

/// The commands that read or change sessions through the reader pool: the
/// query runs on a reader thread, its answer comes back to this loop.
extension ChatConnection {
    /// Runs `query` on a reader thread, then `finish` on this loop if the
    /// connection is still open. A full reader queue answers `overloaded` and
    /// returns false (`finish` will not run).
    @discardableResult
    private func withDatabase<T: Sendable>(
        ref: String?, _ query: @escaping @Sendable (ChatQueries) throws(ChatError) -> T,
        then finish: @escaping @Sendable (ChatConnection, Result<T, ChatError>) -> Void
    ) -> Bool {
        let hub = self.hub
        let serial = self.serial
        let loopIndex = hub.loop.index
        let service = self.service
        let accepted = service.readers.submit { queries in
            let result: Result<T, ChatError>
            do throws(ChatError) {
                result = .success(try query(queries))
            } catch {
                if error.code == .unavailable { service.metrics.databaseErrors(.reader).increment() }
                result = .failure(error)
            }
            service.post(toLoop: loopIndex) {
                guard let connection = hub.connection(serial) else { return }
                finish(connection, result)
            }
        }
        if !accepted { fail(ChatError(.overloaded, "too many requests in flight; retry later", ref: ref)) }
        return accepted
    }

    // MARK: session.create

    func createSession(title: String?, ref: String?, as identity: Identity) {
        // Counted until answered, so pipelined creates cannot pass the joined-sessions cap.
        pendingCreates += 1
        let directory = service.directory
        let accepted = withDatabase(ref: ref) { queries throws(ChatError) in
            let session = try ChatError.mapping(ref) { () throws(QueryError) in
                try queries.createSession(workspaceID: identity.workspaceID, visitorID: identity.id, title: title)
            }
            directory.remember(session)
            return session
        } then: { connection, result in
            connection.pendingCreates -= 1
            switch result {
            case .failure(let error): connection.fail(error)
            case .success(let session):
                connection.subscribe(session.id, state: .live(lastSeq: session.lastSeq), accessChecked: true)
                connection.reply(connection.hub.encoder.session(ref: ref, session))
                connection.service.announce(session, excluding: connection.serial, fromLoop: connection.hub.loop.index)
            }
        }
        if !accepted { pendingCreates -= 1 }
    }

    // MARK: join

    /// Joins at once (so no live message can slip past), holds live frames
    /// while the replay is read, then sends `joined`, the replay, and what was held.
    func join(_ sessionID: String, since: Int64, ref: String?, as identity: Identity) {
        // A rejoin keeps what the earlier join established (same token, same session).
        let subscription = subscribe(
            sessionID, state: .replaying([]), accessChecked: subscriptions[sessionID]?.accessChecked ?? false)
        let joinID = subscription.joinID
        let limit = settings.replayLimit
        let directory = service.directory
        withDatabase(ref: ref) { queries throws(ChatError) in
            try ChatError.mapping(ref) { () throws(QueryError) -> Result<JoinReplay, ChatError> in
                guard let session = try queries.session(id: sessionID) else {
                    return .failure(ChatError(.notFound, "no session \(sessionID)", ref: ref))
                }
                if let denied = Access.checkView(identity, session, ref: ref) { return .failure(denied) }
                directory.remember(session)
                // The newest `limit` messages after since_seq; older ones are paged over HTTP.
                let since = min(since, session.lastSeq)
                let from = max(since, session.lastSeq - Int64(limit))
                let messages = try queries.messages(sessionID: sessionID, afterSeq: from, limit: limit)
                return .success(JoinReplay(session: session, from: from, truncated: from > since, messages: messages))
            }.get()
        } then: { connection, result in
            connection.finishJoin(sessionID, joinID: joinID, result, ref: ref)
        }
    }

    private func finishJoin(_ sessionID: String, joinID: UInt64, _ result: Result<JoinReplay, ChatError>, ref: String?)
    {
        // Left or joined again meanwhile: this answer is for a join that no longer exists.
        guard let subscription = subscriptions[sessionID], subscription.joinID == joinID else { return }
        switch result {
        case .failure(let error):
            subscriptions[sessionID] = nil
            hub.remove(subscription)
            fail(error)
        case .success(let replay):
            subscription.accessChecked = true
            let newest = replay.messages.last?.seq ?? replay.from
            // `joined`, up to replay_limit messages and what was held: one send, not hundreds.
            socket?.batchWrites {
                reply(
                    hub.encoder.joined(
                        ref: ref, sessionID: sessionID, lastSeq: max(replay.session.lastSeq, newest),
                        truncated: replay.truncated))
                for message in replay.messages { reply(hub.encoder.message(message)) }
                subscription.goLive(after: newest)
            }
        }
    }

    @discardableResult
    func subscribe(_ sessionID: String, state: Subscription.State, accessChecked: Bool) -> Subscription {
        if let previous = subscriptions[sessionID] { hub.remove(previous) }
        nextJoinID &+= 1
        let subscription = Subscription(
            connection: self, sessionID: sessionID, joinID: nextJoinID, state: state, accessChecked: accessChecked)
        subscriptions[sessionID] = subscription
        hub.add(subscription)
        return subscription
    }

    // MARK: read

    func recordRead(_ sessionID: String, seq: Int64, ref: String?, as identity: Identity) {
        withDatabase(ref: ref) { queries throws(ChatError) in
            try ChatError.mapping(ref) { () throws(QueryError) in
                try queries.recordRead(
                    sessionID: sessionID, readerID: identity.id, readerRole: identity.role.rawValue, seq: seq)
            }
        } then: { connection, result in
            switch result {
            case .failure(let error): connection.fail(error)
            case .success(nil): connection.fail(ChatError(.notFound, "no session \(sessionID)", ref: ref))
            case .success(let stored?):
                let hub = connection.hub
                let frame = SharedFrame(
                    payload: hub.encoder.read(sessionID: sessionID, reader: connection.participant, seq: stored))
                var delivery = LoopDelivery()
                delivery.sessionFrames.append(
                    SessionFrame(sessionID: sessionID, seq: nil, excludedConnection: nil, frame: frame))
                connection.service.broadcast(delivery, fromLoop: hub.loop.index)
            }
        }
    }

    // MARK: inbox

    func subscribeInbox(ref: String?, as identity: Identity) {
        if inboxWorkspace == nil {
            inboxWorkspace = identity.workspaceID
            hub.subscribeInbox(self, workspace: identity.workspaceID)
        }
        let pageSize = settings.inboxPageSize
        let directory = service.directory
        withDatabase(ref: ref) { queries throws(ChatError) in
            let page = try ChatError.mapping(ref) { () throws(QueryError) in
                try queries.inbox(
                    workspaceID: identity.workspaceID, statuses: [.open, .assigned], limit: pageSize, cursor: nil)
            }
            directory.remember(page.sessions)
            return page
        } then: { connection, result in
            switch result {
            case .failure(let error): connection.fail(error)
            case .success(let page):
                connection.reply(
                    connection.hub.encoder.inbox(ref: ref, sessions: page.sessions, nextCursor: page.nextCursor))
            }
        }
    }

    // MARK: session.assign, session.close

    func assign(_ sessionID: String, to operatorID: String, ref: String?, as identity: Identity) {
        // The operator's name is known only when operators assign themselves.
        let operatorName = operatorID == identity.id ? identity.name : nil
        changeSession(sessionID, ref: ref, check: Access.checkAssign) { queries, _ throws(QueryError) in
            try queries.assign(sessionID: sessionID, operatorID: operatorID, operatorName: operatorName)
        }
    }

    func close(_ sessionID: String, ref: String?, as identity: Identity) {
        changeSession(sessionID, ref: ref, check: Access.checkClose) { queries, _ throws(QueryError) in
            try queries.close(sessionID: sessionID)
        }
    }

    /// Looks the session up, checks the caller may change it, changes it, and
    /// announces the result to the session and the workspace's inbox.
    private func changeSession(
        _ sessionID: String, ref: String?,
        check: @escaping @Sendable (Identity, SessionInfo, String?) -> ChatError?,
        change: @escaping @Sendable (ChatQueries, SessionInfo) throws(QueryError) -> SessionInfo?
    ) {
        guard let identity else { return }
        let directory = service.directory
        withDatabase(ref: ref) { queries throws(ChatError) in
            try ChatError.mapping(ref) { () throws(QueryError) -> Result<SessionInfo, ChatError> in
                guard let session = try queries.session(id: sessionID) else {
                    return .failure(ChatError(.notFound, "no session \(sessionID)", ref: ref))
                }
                if let denied = check(identity, session, ref) { return .failure(denied) }
                guard let changed = try change(queries, session) else {
                    return .failure(ChatError(.notFound, "no session \(sessionID)", ref: ref))
                }
                directory.remember(changed)
                return .success(changed)
            }.get()
        } then: { connection, result in
            switch result {
            case .failure(let error): connection.fail(error)
            case .success(let session):
                connection.reply(connection.hub.encoder.sessionUpdated(ref: ref, session))
                connection.service.announce(session, excluding: connection.serial, fromLoop: connection.hub.loop.index)
            }
        }
    }
}

/// What a join's reader job found.
struct JoinReplay: Sendable {
    let session: SessionInfo
    /// Messages after this seq were replayed.
    let from: Int64
    let truncated: Bool
    let messages: [ChatMessage]
}

extension ChatError {
    /// Runs a query; a database failure becomes the protocol's `unavailable`.
    static func mapping<T>(_ ref: String?, _ body: () throws(QueryError) -> T) throws(ChatError) -> T {
        do throws(QueryError) {
            return try body()
        } catch {
            switch error {
            case .unavailable:
                throw ChatError(.unavailable, "the database is unreachable; retry later", ref: ref)
            case .invalidCursor:
                throw ChatError(.badRequest, "invalid cursor", ref: ref)
            case .failed:
                throw ChatError(.unavailable, "the request could not be completed; retry later", ref: ref)
            }
        }
    }
}
