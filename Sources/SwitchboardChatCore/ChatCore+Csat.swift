import SwitchboardAuth
import SwitchboardChat
import SwitchboardReaders

/// `csat` (docs/protocol.md, "The agent's desk"): the visitor of a closed
/// session rates it once, stored on a reader thread; the visitor gets the
/// session back as `session.updated` with its `ref`, and everyone following
/// the session or its workspace's inbox gets it too (webhooks as
/// `session.updated`, by the session's trigger).
extension ChatCore {
    func recordCsat(
        _ id: UInt64, _ sessionID: String, rating: Int, comment: String?, ref: String?, as identity: Identity
    ) {
        withDatabase(id, ref: ref) { queries throws(QueryError) in
            try queries.recordCsat(sessionID: sessionID, visitorID: identity.id, rating: rating, comment: comment)
        } then: { core, _, result in
            switch result {
            case .failure(let error): core.fail(id, error)
            case .success(.failure(let refusal)): core.fail(id, Self.csatError(refusal, sessionID, ref: ref))
            case .success(.success(let session)):
                core.reply(id, core.encoder.sessionUpdated(ref: ref, core.directory.freshest(session)))
                core.announce(session, excluding: id)
            }
        }
    }

    static func csatError(_ refusal: CsatRefusal, _ sessionID: String, ref: String?) -> ChatError {
        switch refusal {
        case .notFound: ChatError(.notFound, "no session \(sessionID)", ref: ref)
        case .notClosed: ChatError(.badRequest, "session \(sessionID) is not closed: rate it once it is", ref: ref)
        case .alreadyRated: ChatError(.badRequest, "session \(sessionID) is rated already", ref: ref)
        case .disabled: ChatError(.forbidden, "this workspace does not ask for ratings", ref: ref)
        }
    }
}
