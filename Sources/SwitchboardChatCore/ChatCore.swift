import Logging
import SwitchboardAttachments
import SwitchboardAuth
import SwitchboardChat
import SwitchboardMetrics
import SwitchboardSystem

/// One event loop's chat, and the only owner of it: who is connected, who is
/// joined to which session, who watches which workspace's inbox, the sends
/// waiting for their commit, and what this loop knows of recent sessions.
/// Everything reaches it as a call on its loop's thread: client commands
/// (`handle`, from `ChatConnection`), committed batches (`committed`, posted
/// by the writer), reader answers (through `SessionReader`), and events from
/// the other loops (`apply`, through `ChatCores`). It answers by writing to
/// `ChatPeer`s, so it runs in tests with fakes for the peers, the writer
/// (`MessageStore`) and the readers (`SessionReader`).
///
/// Threading: confined to its loop's thread; other threads only carry it
/// back there (hence `@unchecked Sendable`).
package final class ChatCore: @unchecked Sendable {
    let loopIndex: Int
    let settings: ChatSettings
    /// Checks each connection's `hello` token.
    let verifier: TokenVerifier
    /// Seconds since the Unix epoch: when tokens are checked and expire.
    let wallClock: @Sendable () -> Int64
    let store: any MessageStore
    let reader: any SessionReader
    /// This core's loop, for work that waits for the pass's writes (`afterWrites`).
    let loop: any LoopExecutor
    unowned let cores: ChatCores
    let metrics: GatewayMetrics
    let logger: Logger

    /// Open connections by id (unique in the process: `ChatCores.nextConnectionID`).
    var clients: [UInt64: ChatClient] = [:]
    /// Who is joined to each session: one `Subscription` per connection.
    var sessions: [String: [Subscription]] = [:]
    /// Inbox subscribers by workspace.
    var inbox: [String: [InboxWatcher]] = [:]
    /// Consoles following each workspace's presence, by connection.
    var presenceWatchers: [String: [UInt64: PresenceWatcher]] = [:]
    /// Visitors' subscriptions told their `availability`, by workspace.
    var waitingVisitors: [String: [Subscription]] = [:]
    /// Sends handed to the store and not yet answered, by token.
    var pendingSends: [UInt64: PendingSend] = [:]
    var nextToken: UInt64 = 0
    /// Sessions whose missing messages are being read (one read per session
    /// serves every subscription of it here).
    var repairing: Set<String> = []
    /// Each joined session's last_seq in the database at the previous sweep.
    var sweepMarks: [String: Int64] = [:]
    var directory = SessionDirectory()
    /// Operators seen saying hello, written to `operators` one batch at a time.
    var staffSightings = StaffSightings()
    /// `read` positions waiting for their statement, one in flight at a time.
    var pendingReads = PendingReads()
    /// Replies and broadcasts are encoded here: one reusable buffer per loop.
    /// Attachments' URLs are signed as a message is encoded, valid for
    /// `settings.attachmentURLTTLSeconds` by `wallClock`.
    var encoder: ServerFrameEncoder

    /// `attachmentSigner`: keyed from the JWT secret, as the server that checks the URLs is.
    package init(
        loopIndex: Int, settings: ChatSettings, verifier: TokenVerifier, attachmentSigner: AttachmentURLSigner,
        store: any MessageStore, reader: any SessionReader, loop: any LoopExecutor, cores: ChatCores,
        metrics: GatewayMetrics, logger: Logger, wallClock: @escaping @Sendable () -> Int64 = UnixClock.nowSeconds
    ) {
        self.loopIndex = loopIndex
        self.settings = settings
        self.verifier = verifier
        self.wallClock = wallClock
        self.store = store
        self.reader = reader
        self.loop = loop
        self.cores = cores
        self.metrics = metrics
        self.logger = logger
        encoder = ServerFrameEncoder(
            attachmentLinks: AttachmentLinks(
                signer: attachmentSigner, ttlSeconds: settings.attachmentURLTTLSeconds, clock: wallClock))
    }

    // MARK: Connections

    /// A new client connection, opened at loop time `now`; returns its id. It
    /// has until the auth timeout to say `hello` (`tick`).
    package func open(_ peer: ChatPeer, nowMilliseconds now: UInt64) -> UInt64 {
        let id = cores.nextConnectionID()
        clients[id] = ChatClient(
            peer: peer, authDeadline: now + settings.authTimeoutMilliseconds,
            limiter: RateLimiter(
                messagesPerSecond: settings.ratePerSecond, burst: settings.rateBurst,
                strikesBeforeClose: settings.rateStrikes))
        metrics.connections(.unauthenticated).increment()
        return id
    }

    /// Forgets everything of a closed connection. Its sends still waiting for
    /// their commit are answered to nobody: the store answers every command.
    package func close(_ id: UInt64) {
        guard let client = clients.removeValue(forKey: id) else { return }
        metrics.connections(client.role).decrement()
        if let identity = client.identity, identity.role != .visitor {
            cores.routing?.disconnected(identity.participant, workspace: identity.workspaceID)
        }
        for subscription in client.joined.values { unlist(subscription) }
        if let workspace = client.inboxWorkspace { unwatchInbox(id, workspace: workspace) }
        unwatchPresence(id, client)
    }

    // MARK: Commands

    /// One command of an authenticated connection (`receive` has checked its rate and its `hello`); `receivedAt` is when its
    /// loop woke to it (monotonic nanoseconds, 0 when unknown).
    func handle(_ request: ClientRequest, from id: UInt64, as identity: Identity, receivedAt: UInt64 = 0) {
        guard let client = clients[id] else { return }
        let ref = request.ref
        switch request.frame {
        case .hello:
            fail(id, ChatError(.badRequest, "already authenticated", ref: ref))
        case .ping:
            reply(id, encoder.pong(ref: ref))
        case .sessionCreate(let title, let context):
            if let error = Access.requireVisitor(identity, action: "session.create", ref: ref) {
                return fail(id, error)
            }
            guard client.joined.count + client.pendingCreates < settings.maxJoinedSessions else {
                return failJoinLimit(id, ref)
            }
            createSession(id, title: title, context: context, ref: ref, as: identity)
        case .join(let sessionID, let sinceSeq):
            guard
                client.joined[sessionID] != nil
                    || client.joined.count + client.pendingCreates < settings.maxJoinedSessions
            else { return failJoinLimit(id, ref) }
            join(id, sessionID, since: sinceSeq ?? 0, ref: ref, as: identity)
        case .leave(let sessionID):
            if let subscription = client.joined.removeValue(forKey: sessionID) { unlist(subscription) }
            reply(id, encoder.left(ref: ref, sessionID: sessionID))
        case .send(let sessionID, let clientMessageID, let body, let kind, let attachments):
            guard requireJoined(client, id, sessionID, ref: ref) else { return }
            if kind == ChatMessage.eventKind {
                return fail(id, ChatError(.forbidden, "kind \"event\" is the gateway's own: it stores those", ref: ref))
            }
            if kind == ChatMessage.noteKind && identity.role == .visitor {
                return fail(id, ChatError(.forbidden, "notes are for operators and admins", ref: ref))
            }
            send(
                id, sessionID, clientMessageID: clientMessageID, body: body, kind: kind, attachments: attachments,
                ref: ref, as: identity, receivedAt: receivedAt)
        case .typing(let sessionID, let state):
            guard requireJoined(client, id, sessionID, ref: ref) else { return }
            let frame = SharedFrame(
                payload: encoder.typing(sessionID: sessionID, sender: identity.participant, state: state))
            broadcast(.session(SessionFrame(sessionID: sessionID, seq: nil, excludedConnection: id, frame: frame)))
        case .read(let sessionID, let seq):
            guard requireJoined(client, id, sessionID, ref: ref) else { return }
            recordRead(id, sessionID, seq: seq, ref: ref, as: identity)
        case .inboxSubscribe:
            if let error = Access.requireStaff(identity, action: "inbox.subscribe", ref: ref) { return fail(id, error) }
            subscribeInbox(id, ref: ref, as: identity)
        case .sessionAssign(let sessionID, let operatorID):
            if let error = Access.requireStaff(identity, action: "session.assign", ref: ref) { return fail(id, error) }
            assign(id, sessionID, to: operatorID ?? identity.id, ref: ref, as: identity)
        case .sessionClose(let sessionID):
            closeSession(id, sessionID, ref: ref, as: identity)
        case .presenceSet(let status):
            if let error = Access.requireStaff(identity, action: "presence.set", ref: ref) { return fail(id, error) }
            setPresence(id, status, ref: ref, as: identity)
        case .presenceSubscribe:
            if let error = Access.requireStaff(identity, action: "presence.subscribe", ref: ref) {
                return fail(id, error)
            }
            subscribePresence(id, ref: ref, as: identity)
        case .sessionContact(let sessionID, let email):
            if let error = Access.requireVisitor(identity, action: "session.contact", ref: ref) {
                return fail(id, error)
            }
            guard requireJoined(client, id, sessionID, ref: ref) else { return }
            recordContact(id, sessionID, email: email, ref: ref, as: identity)
        case .csat(let sessionID, let rating, let comment):
            if let error = Access.requireVisitor(identity, action: "csat", ref: ref) { return fail(id, error) }
            guard requireJoined(client, id, sessionID, ref: ref) else { return }
            recordCsat(id, sessionID, rating: rating, comment: comment, ref: ref, as: identity)
        }
    }

    /// Frames that act inside a session need the connection joined to it,
    /// and the join answered: the answer is where the session's access rule
    /// is checked, so a frame pipelined behind its join is refused.
    private func requireJoined(_ client: ChatClient, _ id: UInt64, _ sessionID: String, ref: String?) -> Bool {
        guard let subscription = client.joined[sessionID] else {
            fail(id, ChatError(.forbidden, "join session \(sessionID) before using it", ref: ref))
            return false
        }
        guard subscription.accessChecked else {
            fail(
                id, ChatError(.forbidden, "session \(sessionID): wait for the join's answer before using it", ref: ref))
            return false
        }
        return true
    }

    private func failJoinLimit(_ id: UInt64, _ ref: String?) {
        fail(
            id,
            ChatError(
                .badRequest, "a connection may be joined to at most \(settings.maxJoinedSessions) sessions", ref: ref))
    }

    // MARK: Replies

    func reply(_ id: UInt64, _ payload: [UInt8]) {
        guard let client = clients[id] else { return }
        metrics.framesOut.increment()
        client.peer.sendText(payload)
    }

    func fail(_ id: UInt64, _ error: ChatError) {
        reply(id, encoder.error(error))
    }

    /// Tells every core, this one first and at once, and the other nodes.
    func broadcast(_ event: ChatEvent) {
        cores.everyCore(from: loopIndex) { $0.apply(event) }
        cores.cluster?.publish(event)
    }
}

/// An inbox subscriber, with its peer at hand for fan-out.
package struct InboxWatcher {
    let connection: UInt64
    let peer: ChatPeer
}

/// A `send` handed to the store, remembered until its commit is known.
package struct PendingSend {
    let connection: UInt64
    let ref: String?
    package let sessionID: String
}

extension Identity {
    /// The identity as message frames name their sender, reader or typist.
    package var participant: Participant {
        Participant(id: id, role: role.rawValue, name: name)
    }
}
