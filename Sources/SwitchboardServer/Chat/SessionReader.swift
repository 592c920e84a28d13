import SwitchboardChat
import SwitchboardReaders

/// The queries the chat core runs: `ChatQueries` (one libpq connection per
/// reader thread) in production, an in-memory store in tests.
protocol SessionQueries {
    func createSession(workspaceID: String, visitorID: String, title: String?) throws(QueryError) -> SessionInfo
    func session(id: String) throws(QueryError) -> SessionInfo?
    func messages(sessionID: String, afterSeq: Int64, limit: Int) throws(QueryError) -> [ChatMessage]
    func recordRead(sessionID: String, readerID: String, readerRole: String, seq: Int64) throws(QueryError) -> Int64?
    func inbox(
        workspaceID: String, statuses: [SessionStatus], limit: Int, cursor: String?
    ) throws(QueryError) -> InboxPage
    func assign(sessionID: String, operatorID: String, operatorName: String?) throws(QueryError) -> SessionInfo?
    func close(sessionID: String) throws(QueryError) -> SessionInfo?
}

extension ChatQueries: SessionQueries {}

/// Runs the core's queries off its loop (libpq blocks) and brings each
/// result back to that loop.
protocol SessionReader: Sendable {
    /// Runs `query` on a reader thread, then `finish` with its outcome on the
    /// core's loop. Returns false, and runs neither, when the readers cannot
    /// take more work.
    func read<T: Sendable>(
        _ query: @escaping @Sendable (any SessionQueries) throws(QueryError) -> T,
        then finish: @escaping @Sendable (Result<T, QueryError>) -> Void
    ) -> Bool
}

/// The production reader: the gateway's `ReaderPool`, answering on one loop.
struct PooledSessionReader: SessionReader {
    let pool: ReaderPool
    let loop: LoopHandoff

    func read<T: Sendable>(
        _ query: @escaping @Sendable (any SessionQueries) throws(QueryError) -> T,
        then finish: @escaping @Sendable (Result<T, QueryError>) -> Void
    ) -> Bool {
        pool.run({ queries in Result { () throws(QueryError) in try query(queries) } }, thenOn: loop, finish)
    }
}

/// One session to bring up to date from the database.
struct CatchUpRequest: Sendable {
    let sessionID: String
    /// Read the messages after this seq; nil reads only the session's state.
    let after: Int64?
    /// Send the session's state as `session.updated` afterwards (another node changed it).
    let announce: Bool
}

/// What the database holds for a `CatchUpRequest`.
struct CatchUpAnswer: Sendable {
    let request: CatchUpRequest
    /// Nil when the session does not exist.
    let session: SessionInfo?
    /// After `request.after`, in seq order, at most the read's limit.
    let messages: [ChatMessage]
    /// The database holds no message up to this seq that is not in
    /// `messages` (deleted ones leave holes in the sequence).
    let through: Int64
}

extension SessionQueries {
    /// The state, then the messages, of each session: the state first, so
    /// that `through` (its last_seq when the read was not cut by `limit`)
    /// never claims a message committed after the messages were read.
    func catchUp(_ requests: [CatchUpRequest], limit: Int) throws(QueryError) -> [CatchUpAnswer] {
        var answers: [CatchUpAnswer] = []
        answers.reserveCapacity(requests.count)
        for request in requests {
            let session = try session(id: request.sessionID)
            guard let after = request.after, let session else {
                answers.append(
                    CatchUpAnswer(request: request, session: session, messages: [], through: request.after ?? 0))
                continue
            }
            let messages = try messages(sessionID: request.sessionID, afterSeq: after, limit: limit)
            let newest = messages.last?.seq ?? after
            let through = messages.count < limit ? max(newest, session.lastSeq) : newest
            answers.append(CatchUpAnswer(request: request, session: session, messages: messages, through: through))
        }
        return answers
    }
}
