import SwitchboardAuth
import SwitchboardChat
import SwitchboardReaders

/// `session.contact` (our extension, docs/protocol.md): the visitor of a
/// session leaves an address (the widget's offline-email form), stored as
/// the session's `contact.email` on a reader thread; the visitor gets the
/// session back as `session.updated` with its `ref`, and everyone following
/// the session or its workspace's inbox (every loop, every node) gets it too.
extension ChatCore {
    func recordContact(_ id: UInt64, _ sessionID: String, email: String, ref: String?, as identity: Identity) {
        withDatabase(id, ref: ref) { queries throws(QueryError) in
            try queries.recordContact(sessionID: sessionID, visitorID: identity.id, email: email)
        } then: { core, _, result in
            switch result {
            case .failure(let error): core.fail(id, error)
            case .success(nil): core.fail(id, ChatError(.notFound, "no session \(sessionID)", ref: ref))
            case .success(let session?):
                core.reply(id, core.encoder.sessionUpdated(ref: ref, core.directory.freshest(session)))
                core.announce(session, excluding: id)
            }
        }
    }
}
