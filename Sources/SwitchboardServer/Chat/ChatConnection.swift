import SwitchboardAuth
import SwitchboardChat
import SwitchboardMetrics
import SwitchboardWebSocket

/// One client of `/v1/ws` (PROTOCOL.md): authentication, rate limits, and
/// the dispatch of each frame to its command. Lives on its loop's thread.
final class ChatConnection: WebSocketApplication {
    let serial: UInt64
    unowned let hub: ChatHub
    let settings: ChatSettings
    private(set) unowned(unsafe) var socket: WebSocketConnectionHandler?
    private(set) var identity: Identity?
    private var authDeadline: UInt64 = 0
    private var limiter: RateLimiter
    var subscriptions: [String: Subscription] = [:]
    /// `session.create`s sent to the reader pool and not yet answered.
    var pendingCreates = 0
    var inboxWorkspace: String?
    var nextJoinID: UInt64 = 0

    init(hub: ChatHub) {
        self.hub = hub
        settings = hub.service.settings
        serial = hub.service.nextConnectionSerial()
        limiter = RateLimiter(
            messagesPerSecond: settings.ratePerSecond, burst: settings.rateBurst,
            strikesBeforeClose: settings.rateStrikes)
    }

    var service: ChatService { hub.service }
    var firstTickMilliseconds: UInt64? { settings.authTimeoutMilliseconds }

    func opened(_ socket: WebSocketConnectionHandler) {
        self.socket = socket
        authDeadline = hub.loop.now + settings.authTimeoutMilliseconds
        hub.register(self)
        service.metrics.connections(.unauthenticated).increment()
    }

    func closed(_ socket: WebSocketConnectionHandler) {
        service.metrics.connections(metricsRole).decrement()
        hub.unregister(self)
        subscriptions.removeAll()
        self.socket = nil
    }

    /// Deadlines: `hello` within the auth timeout, and a token that expires
    /// while connected ends the connection (4001).
    func tick(_ socket: WebSocketConnectionHandler, nowMilliseconds: UInt64) {
        guard let identity else {
            if nowMilliseconds >= authDeadline {
                socket.close(code: 4001, reason: "no hello within \(settings.authTimeoutMilliseconds / 1000) s")
            }
            return
        }
        if service.verifier.isExpired(identity.expiresAt, now: UnixClock.nowSeconds()) {
            reply(hub.encoder.error(ChatError(.unauthorized, "token expired")))
            socket.close(code: 4001, reason: "token expired")
        }
    }

    func received(_ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer, from socket: WebSocketConnectionHandler)
    {
        service.metrics.framesIn.increment()
        guard opcode == .text else {
            socket.close(code: 1003, reason: "binary frames are not accepted")
            return
        }
        // Decoded before the rate check so that a refusal carries the frame's ref.
        let decoded = ClientFrameDecoder.decode(payload, limits: settings.limits)
        let ref: String?
        switch decoded {
        case .success(let request): ref = request.ref
        case .failure(let error): ref = error.ref
        }
        switch limiter.admit(nowMilliseconds: hub.loop.now) {
        case .allowed: break
        case .limited:
            service.metrics.rateLimited.increment()
            fail(
                ChatError(
                    .rateLimited, "slow down: at most \(Int(settings.ratePerSecond)) frames per second", ref: ref))
            return
        case .abusive:
            socket.close(code: 4008, reason: "repeated rate-limit violations")
            return
        }
        let request: ClientRequest
        switch decoded {
        case .success(let valid): request = valid
        case .failure(let error):
            if identity == nil {
                refuse(ChatError(.unauthorized, "the first frame must be hello", ref: error.ref))
            } else {
                fail(error)
            }
            return
        }
        guard let identity else {
            authenticate(request)
            return
        }
        dispatch(request, as: identity)
    }

    private func authenticate(_ request: ClientRequest) {
        guard case .hello(let token) = request.frame else {
            refuse(ChatError(.unauthorized, "the first frame must be hello", ref: request.ref))
            return
        }
        let verified: Identity
        do {
            verified = try service.verifier.verify(token, now: UnixClock.nowSeconds())
        } catch {
            refuse(ChatError(.unauthorized, "\(error)", ref: request.ref))
            return
        }
        service.metrics.connections(.unauthenticated).decrement()
        identity = verified
        service.metrics.connections(metricsRole).increment()
        reply(
            hub.encoder.welcome(
                connectionID: Self.connectionID(serial), identity: verified,
                heartbeatSeconds: settings.heartbeatSeconds, maxMessageBytes: settings.maxMessageBytes,
                maxBodyBytes: settings.limits.maxBodyBytes))
    }

    /// An authentication failure: say why, then close with 4001.
    private func refuse(_ error: ChatError) {
        reply(hub.encoder.error(error))
        socket?.close(code: 4001, reason: error.message)
    }

    // MARK: Replies

    func reply(_ payload: [UInt8]) {
        service.metrics.framesOut.increment()
        socket?.sendText(payload)
    }

    private var metricsRole: ConnectionRole {
        switch identity?.role {
        case nil: .unauthenticated
        case .visitor: .visitor
        case .operator: .operator
        case .admin: .admin
        }
    }

    func fail(_ error: ChatError) {
        reply(hub.encoder.error(error))
    }

    var participant: Participant {
        Participant(id: identity?.id ?? "", role: identity?.role.rawValue ?? "", name: identity?.name)
    }

    /// Short, unique per process: the serial in base 36.
    static func connectionID(_ serial: UInt64) -> String {
        "c" + String(serial, radix: 36)
    }
}
