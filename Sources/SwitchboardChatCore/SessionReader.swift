import SwitchboardChat
import SwitchboardReaders

/// The queries the chat core runs: `ChatQueries` (one libpq connection per
/// reader thread) in production, an in-memory store in tests.
package protocol SessionQueries {
    func createSession(
        workspaceID: String, visitorID: String, title: String?, context: String?, contact: String?
    ) throws(QueryError) -> SessionInfo
    func session(id: String) throws(QueryError) -> SessionInfo?
    func messages(sessionID: String, afterSeq: Int64, limit: Int, withNotes: Bool) throws(QueryError) -> [ChatMessage]
    /// Each reader's stored position, in the order asked; nil: no such live session.
    func recordReads(_ positions: [ReadPosition]) throws(QueryError) -> [Int64?]
    func inbox(
        workspaceID: String, statuses: [SessionStatus], limit: Int, cursor: String?
    ) throws(QueryError) -> InboxPage
    /// A change by `actor`, with the event it stored; nil: no such live session.
    func changeSession(
        sessionID: String, _ change: SessionChangeRequest, by actor: Participant
    ) throws(QueryError) -> SessionChange?
    /// Operators or admins connected (their names, for assignments by others).
    func recordOperators(_ sightings: [OperatorSighting]) throws(QueryError)
    /// Sessions brought up to date from the database (gaps, hints, the bus's absences).
    func catchUp(_ requests: [CatchUpRequest], limit: Int) throws(QueryError) -> [CatchUpAnswer]
    /// The visitor's address as the session's `contact.email`; nil: not its live session.
    func recordContact(sessionID: String, visitorID: String, email: String) throws(QueryError) -> SessionInfo?
    /// A closed session's rating by its visitor, once; the session as stored, or why not.
    func recordCsat(
        sessionID: String, visitorID: String, rating: Int, comment: String?
    ) throws(QueryError) -> Result<SessionInfo, CsatRefusal>
    /// Each live session's last_seq (the sweep for lost hints).
    func lastSeqs(sessionIDs: [String]) throws(QueryError) -> [String: Int64]
}

extension ChatQueries: SessionQueries {}

/// Runs the core's queries off its loop (libpq blocks) and brings each
/// result back to that loop.
package protocol SessionReader: Sendable {
    /// Runs `query` on a reader thread, then `finish` with its outcome on the
    /// core's loop. Returns false, and runs neither, when the readers cannot
    /// take more work.
    func read<T: Sendable>(
        _ query: @escaping @Sendable (any SessionQueries) throws(QueryError) -> T,
        then finish: @escaping @Sendable (Result<T, QueryError>) -> Void
    ) -> Bool
}

extension SessionQueries {
    func lastSeqs(sessionIDs: [String]) throws(QueryError) -> [String: Int64] {
        var seqs: [String: Int64] = [:]
        for id in sessionIDs { if let session = try session(id: id) { seqs[id] = session.lastSeq } }
        return seqs
    }

    /// The state, then the messages, of each session, a query each: the
    /// state first, so that `through` (its last_seq when the read was not
    /// cut by `limit`) never claims a message committed after the messages
    /// were read. `ChatQueries` does it in one statement.
    func catchUp(_ requests: [CatchUpRequest], limit: Int) throws(QueryError) -> [CatchUpAnswer] {
        var answers: [CatchUpAnswer] = []
        answers.reserveCapacity(requests.count)
        for request in requests {
            let session = try session(id: request.sessionID)
            var messages: [ChatMessage] = []
            if let after = request.after, session != nil {
                // Shared by every subscription of the session: each decides what it may read.
                messages = try self.messages(
                    sessionID: request.sessionID, afterSeq: after, limit: limit, withNotes: true)
            }
            answers.append(CatchUpAnswer(request: request, session: session, messages: messages, limit: limit))
        }
        return answers
    }
}
