import SwitchboardAuth
import SwitchboardChat

/// Everything a connection's frames meet before a command runs: the rate
/// limit, `hello` first (its token checked, `welcome` in answer), the auth
/// timeout and the token's expiry. The socket hands each frame here as its
/// decoder left it; what happens to the connection, the core decides.
extension ChatCore {
    /// One frame of connection `id`, decoded or refused by the decoder, at
    /// loop time `now`; `receivedAt` is when the loop woke to it (monotonic
    /// nanoseconds, 0 when unknown).
    package func receive(
        _ decoded: Result<ClientRequest, ChatError>, from id: UInt64, nowMilliseconds now: UInt64,
        receivedAt: UInt64 = 0
    ) {
        guard let client = clients[id] else { return }
        metrics.framesIn.increment()
        // Refusals carry the frame's ref, so the limit is checked after decoding.
        let ref: String?
        switch decoded {
        case .success(let request): ref = request.ref
        case .failure(let error): ref = error.ref
        }
        switch client.limiter.admit(nowMilliseconds: now) {
        case .allowed:
            break
        case .limited:
            metrics.rateLimited.increment()
            let limit = Int(settings.ratePerSecond)
            return fail(id, ChatError(.rateLimited, "slow down: at most \(limit) frames per second", ref: ref))
        case .abusive:
            return client.peer.close(code: 4008, reason: "repeated rate-limit violations")
        }
        let request: ClientRequest
        switch decoded {
        case .success(let valid): request = valid
        case .failure(let error):
            if client.identity == nil {
                refuse(id, client, ChatError(.unauthorized, "the first frame must be hello", ref: error.ref))
            } else {
                fail(id, error)
            }
            return
        }
        guard let identity = client.identity else { return authenticate(id, client, request) }
        handle(request, from: id, as: identity, receivedAt: receivedAt)
    }

    /// A binary frame: the protocol is JSON text, so it ends the connection (1003).
    package func receiveBinary(from id: UInt64) {
        metrics.framesIn.increment()
        clients[id]?.peer.close(code: 1003, reason: "binary frames are not accepted")
    }

    /// The connection's deadlines at loop time `now`: `hello` within the auth
    /// timeout, and a token that expires while connected ends it (4001).
    package func tick(_ id: UInt64, nowMilliseconds now: UInt64) {
        guard let client = clients[id] else { return }
        guard let identity = client.identity else {
            if now >= client.authDeadline {
                client.peer.close(code: 4001, reason: "no hello within \(settings.authTimeoutMilliseconds / 1000) s")
            }
            return
        }
        if verifier.isExpired(identity.expiresAt, now: wallClock()) {
            fail(id, ChatError(.unauthorized, "token expired"))
            client.peer.close(code: 4001, reason: "token expired")
        }
    }

    private func authenticate(_ id: UInt64, _ client: ChatClient, _ request: ClientRequest) {
        guard case .hello(let token) = request.frame else {
            return refuse(id, client, ChatError(.unauthorized, "the first frame must be hello", ref: request.ref))
        }
        let identity: Identity
        do {
            identity = try verifier.verify(token, now: wallClock())
        } catch {
            return refuse(id, client, ChatError(.unauthorized, "\(error)", ref: request.ref))
        }
        metrics.connections(.unauthenticated).decrement()
        client.identity = identity
        metrics.connections(client.role).increment()
        reply(
            id,
            encoder.welcome(
                connectionID: Self.connectionID(id), identity: identity, heartbeatSeconds: settings.heartbeatSeconds,
                maxMessageBytes: settings.maxMessageBytes, maxBodyBytes: settings.limits.maxBodyBytes,
                operatorsAvailable: cores.routing?.operatorsAvailable(identity.workspaceID)))
        recordStaff(id, identity)
        if identity.role != .visitor { cores.routing?.connected(identity.participant, workspace: identity.workspaceID) }
    }

    /// An authentication failure: say why, then close with 4001.
    private func refuse(_ id: UInt64, _ client: ChatClient, _ error: ChatError) {
        fail(id, error)
        client.peer.close(code: 4001, reason: error.message)
    }

    /// `welcome.conn_id`: short, unique in the process (the id in base 36).
    static func connectionID(_ id: UInt64) -> String {
        "c" + String(id, radix: 36)
    }
}
