import SwitchboardAuth
import SwitchboardChat
import SwitchboardLoop
import SwitchboardMetrics
import SwitchboardSystem
import SwitchboardWebSocket

/// One client of `/v1/ws` (docs/protocol.md): its frames are decoded, rate
/// limited and authenticated here; every command after `hello` goes to the
/// loop's `ChatCore`, which owns the rest. Lives on its loop's thread.
final class ChatConnection: WebSocketApplication {
    private let service: ChatService
    private unowned let core: ChatCore
    private unowned let loop: EventLoop
    /// The core's id for this connection, set when the socket opens.
    private var id: UInt64 = 0
    private unowned(unsafe) var socket: WebSocketConnectionHandler?
    private var identity: Identity?
    private var authDeadline: UInt64 = 0
    private var limiter: RateLimiter

    init(service: ChatService, loop: EventLoop) {
        self.service = service
        self.loop = loop
        core = service.cores.core(forLoop: loop.index)
        let settings = service.settings
        limiter = RateLimiter(
            messagesPerSecond: settings.ratePerSecond, burst: settings.rateBurst,
            strikesBeforeClose: settings.rateStrikes)
    }

    private var settings: ChatSettings { service.settings }
    private var metrics: GatewayMetrics { service.metrics }
    var firstTickMilliseconds: UInt64? { settings.authTimeoutMilliseconds }

    func opened(_ socket: WebSocketConnectionHandler) {
        self.socket = socket
        id = core.open(socket)
        authDeadline = loop.now + settings.authTimeoutMilliseconds
        metrics.connections(.unauthenticated).increment()
    }

    func closed(_ socket: WebSocketConnectionHandler) {
        metrics.connections(metricsRole).decrement()
        core.close(id)
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
            core.fail(id, ChatError(.unauthorized, "token expired"))
            socket.close(code: 4001, reason: "token expired")
        }
    }

    func received(_ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer, from socket: WebSocketConnectionHandler)
    {
        metrics.framesIn.increment()
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
        switch limiter.admit(nowMilliseconds: loop.now) {
        case .allowed: break
        case .limited:
            metrics.rateLimited.increment()
            core.fail(
                id,
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
                core.fail(id, error)
            }
            return
        }
        guard let identity else {
            authenticate(request)
            return
        }
        core.handle(request, from: id, as: identity, receivedAt: loop.wokeAt)
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
        metrics.connections(.unauthenticated).decrement()
        identity = verified
        metrics.connections(metricsRole).increment()
        core.reply(
            id,
            core.encoder.welcome(
                connectionID: Self.connectionID(id), identity: verified, heartbeatSeconds: settings.heartbeatSeconds,
                maxMessageBytes: settings.maxMessageBytes, maxBodyBytes: settings.limits.maxBodyBytes))
        core.recordStaff(verified)
    }

    /// An authentication failure: say why, then close with 4001.
    private func refuse(_ error: ChatError) {
        core.fail(id, error)
        socket?.close(code: 4001, reason: error.message)
    }

    private var metricsRole: ConnectionRole {
        switch identity?.role {
        case nil: .unauthenticated
        case .visitor: .visitor
        case .operator: .operator
        case .admin: .admin
        }
    }

    /// Short, unique per process: the id in base 36.
    static func connectionID(_ id: UInt64) -> String {
        "c" + String(id, radix: 36)
    }
}

extension WebSocketConnectionHandler: ChatPeer {}
