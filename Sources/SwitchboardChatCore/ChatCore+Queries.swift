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
        if !accepted { failOverloaded(id, ref) }
        return accepted
    }

    /// A reader's failure as the protocol's error, counted when the database was away.
    func queryFailed(_ error: QueryError, ref: String?) -> ChatError {
        if case .unavailable = error { metrics.databaseErrors(.reader).increment() }
        return ChatError(error, ref: ref)
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
        // Operators assigning themselves name themselves; another's name is the one it was last seen with.
        let operatorName = operatorID == identity.id ? identity.name : nil
        let change = SessionChangeRequest(assignment: .to(id: operatorID, name: operatorName))
        changeSession(id, sessionID, change, ref: ref, as: identity, check: Access.checkAssign)
    }

    func closeSession(_ id: UInt64, _ sessionID: String, ref: String?, as identity: Identity) {
        changeSession(
            id, sessionID, SessionChangeRequest(status: .closed), ref: ref, as: identity, check: Access.checkClose)
    }

    /// Looks the session up, checks the caller may change it, changes it
    /// (storing its event), and announces the event to the session and the
    /// new state to the session and the workspace's inbox.
    private func changeSession(
        _ id: UInt64, _ sessionID: String, _ change: SessionChangeRequest, ref: String?, as identity: Identity,
        check: @escaping @Sendable (Identity, SessionInfo, String?) -> ChatError?
    ) {
        let actor = identity.participant
        let byHand = change.assignment != nil || change.status == .assigned
        withDatabase(id, ref: ref) { queries throws(QueryError) -> Result<SessionChange, ChatError> in
            guard let session = try queries.session(id: sessionID) else {
                return .failure(ChatError(.notFound, "no session \(sessionID)", ref: ref))
            }
            if let denied = check(identity, session, ref) { return .failure(denied) }
            guard let changed = try queries.changeSession(sessionID: sessionID, change, by: actor) else {
                return .failure(ChatError(.notFound, "no session \(sessionID)", ref: ref))
            }
            return .success(changed)
        } then: { core, _, result in
            switch result.flatMap({ $0 }) {
            case .failure(let error): core.fail(id, error)
            case .success(let change):
                if let event = change.event { core.broadcast(.stored(event)) }
                core.reply(id, core.encoder.sessionUpdated(ref: ref, core.directory.freshest(change.session)))
                core.announce(change.session, excluding: id)
                guard change.changed else { return }
                if byHand && change.event != nil { core.metrics.routingAssignments(mode: "manual").increment() }
                // Closed, released or handed off: capacity may have freed, or the queue grown.
                core.cores.routing?.changed(change.session)
            }
        }
    }

    // MARK: operators

    /// An operator or admin said hello: remembered with its name, so that
    /// others can assign sessions to it by id (`StaffSightings` batches the
    /// writes). Best effort: with the readers busy or the database away, the
    /// next hello or write takes the rows along.
    func recordStaff(_ id: UInt64, _ identity: Identity) {
        guard identity.role != .visitor else { return }
        staffSightings.add(id)
        writeStaffSightings()
    }

    private func writeStaffSightings() {
        while let write = staffSightings.startWrite({ id in
            clients[id]?.identity.map { OperatorSighting(workspaceID: $0.workspaceID, staff: $0.participant) }
        }) {
            let rows = write.rows
            guard !rows.isEmpty else {
                staffSightings.finishWrite()
                continue
            }
            let logger = logger
            let accepted = reader.read({ queries throws(QueryError) in
                try queries.recordOperators(rows)
            }) { [self] result in
                if case .failure(let error) = result {
                    logger.debug("could not record \(rows.count) operator(s): \(error)")
                }
                staffSightings.finishWrite()
                writeStaffSightings()
            }
            guard accepted else { return staffSightings.finishWrite(refused: write.ids) }
        }
    }

    /// `session.updated` for a session this loop changed: to every core (this
    /// one included), for the session's subscribers and its workspace's inbox.
    func announce(_ session: SessionInfo, excluding id: UInt64?) {
        let frame = SharedFrame(payload: encoder.sessionUpdated(ref: nil, session))
        broadcast(.sessionChanged(session, frame: frame, excludedConnection: id))
    }
}
