import SwitchboardAuth
import SwitchboardChat
import SwitchboardRouting

/// `presence.set`: an operator chooses its status (docs/routing.md). Routing
/// writes it on a database thread; the answer comes back to this loop.
extension ChatCore {
    func setPresence(_ id: UInt64, _ status: OperatorStatus, ref: String?, as identity: Identity) {
        guard let routing = cores.routing else {
            return fail(id, ChatError(.unavailable, "routing does not run on this gateway", ref: ref))
        }
        let handoff = LoopHandoff(index: loopIndex, loop: loop, logger: logger)
        let accepted = routing.setOwnStatus(status, of: identity.participant, in: identity.workspaceID) {
            [self] result in
            handoff.post { [self] in
                guard clients[id] != nil else { return }
                switch result {
                case .success(let presence?): reply(id, encoder.presence(ref: ref, presence))
                case .success(nil): fail(id, ChatError(.notFound, "no operator \(identity.id)", ref: ref))
                case .failure(let error): fail(id, ChatError(error, ref: ref))
                }
            }
        }
        if !accepted { fail(id, ChatError(.overloaded, "too many requests in flight; retry later", ref: ref)) }
    }
}
