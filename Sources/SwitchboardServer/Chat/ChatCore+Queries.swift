import SwitchboardAuth
import SwitchboardChat
import SwitchboardReaders

/// The commands that read or change sessions through the readers: the query
/// runs on a reader thread, its answer comes back to this loop.
extension ChatCore {
    /// Runs `query` on a reader; `finish` runs back on this loop if connection
    /// `id` is still open, with a failure already turned into the protocol's
    /// error (carrying `ref`). A full reader queue answers `overloaded` and
    /// returns false (`finish` will not run).
    @discardableResult
    func withDatabase<T: Sendable>(
        _ id: UInt64, ref: String?, _ query: @escaping @Sendable (any SessionQueries) throws(QueryError) -> T,
        then finish: @escaping @Sendable (ChatCore, ChatClient, Result<T, ChatError>) -> Void
    ) -> Bool {
        let accepted = reader.read(query) { [self] result in
            guard let client = clients[id] else { return }
            finish(self, client, result.mapError { error in queryFailed(error, ref: ref) })
        }
        if !accepted { fail(id, ChatError(.overloaded, "too many requests in flight; retry later", ref: ref)) }
        return accepted
    }

    private func queryFailed(_ error: QueryError, ref: String?) -> ChatError {
        if case .unavailable = error { metrics.databaseErrors(.reader).increment() }
        return ChatError(error, ref: ref)
    }

    // MARK: read

    func recordRead(_ id: UInt64, _ sessionID: String, seq: Int64, ref: String?, as identity: Identity) {
        withDatabase(id, ref: ref) { queries throws(QueryError) in
            try queries.recordRead(
                sessionID: sessionID, readerID: identity.id, readerRole: identity.role.rawValue, seq: seq)
        } then: { core, _, result in
            switch result {
            case .failure(let error): core.fail(id, error)
            case .success(nil): core.fail(id, ChatError(.notFound, "no session \(sessionID)", ref: ref))
            case .success(let stored?):
                let frame = SharedFrame(
                    payload: core.encoder.read(sessionID: sessionID, reader: identity.participant, seq: stored))
                core.broadcast(
                    .session(SessionFrame(sessionID: sessionID, seq: nil, excludedConnection: nil, frame: frame)))
            }
        }
    }

    // MARK: inbox

    func subscribeInbox(_ id: UInt64, ref: String?, as identity: Identity) {
        guard let client = clients[id] else { return }
        watchInbox(id, client, workspace: identity.workspaceID)
        let pageSize = settings.inboxPageSize
        withDatabase(id, ref: ref) { queries throws(QueryError) in
            try queries.inbox(
                workspaceID: identity.workspaceID, statuses: [.open, .assigned], limit: pageSize, cursor: nil)
        } then: { core, _, result in
            switch result {
            case .failure(let error): core.fail(id, error)
            case .success(let page):
                // A change the loop has already told of is newer than what the query read.
                let sessions = page.sessions.map { core.directory.freshest($0) }
                core.reply(id, core.encoder.inbox(ref: ref, sessions: sessions, nextCursor: page.nextCursor))
            }
        }
    }

    // MARK: session.assign, session.close

    func assign(_ id: UInt64, _ sessionID: String, to operatorID: String, ref: String?, as identity: Identity) {
        // The operator's name is known only when operators assign themselves.
        let operatorName = operatorID == identity.id ? identity.name : nil
        changeSession(id, sessionID, ref: ref, as: identity, check: Access.checkAssign) { queries throws(QueryError) in
            try queries.assign(sessionID: sessionID, operatorID: operatorID, operatorName: operatorName)
        }
    }

    func closeSession(_ id: UInt64, _ sessionID: String, ref: String?, as identity: Identity) {
        changeSession(id, sessionID, ref: ref, as: identity, check: Access.checkClose) { queries throws(QueryError) in
            try queries.close(sessionID: sessionID)
        }
    }

    /// Looks the session up, checks the caller may change it, changes it, and
    /// announces the result to the session and the workspace's inbox.
    private func changeSession(
        _ id: UInt64, _ sessionID: String, ref: String?, as identity: Identity,
        check: @escaping @Sendable (Identity, SessionInfo, String?) -> ChatError?,
        change: @escaping @Sendable (any SessionQueries) throws(QueryError) -> SessionInfo?
    ) {
        withDatabase(id, ref: ref) { queries throws(QueryError) -> Result<SessionInfo, ChatError> in
            guard let session = try queries.session(id: sessionID) else {
                return .failure(ChatError(.notFound, "no session \(sessionID)", ref: ref))
            }
            if let denied = check(identity, session, ref) { return .failure(denied) }
            guard let changed = try change(queries) else {
                return .failure(ChatError(.notFound, "no session \(sessionID)", ref: ref))
            }
            return .success(changed)
        } then: { core, _, result in
            switch result.flatMap({ $0 }) {
            case .failure(let error): core.fail(id, error)
            case .success(let session):
                core.reply(id, core.encoder.sessionUpdated(ref: ref, core.directory.freshest(session)))
                core.announce(session, excluding: id)
            }
        }
    }

    /// `session.updated` for a session this loop changed: to every core (this
    /// one included), for the session's subscribers and its workspace's inbox.
    func announce(_ session: SessionInfo, excluding id: UInt64?) {
        let frame = SharedFrame(payload: encoder.sessionUpdated(ref: nil, session))
        broadcast(.sessionChanged(session, frame: frame, excludedConnection: id))
    }
}
