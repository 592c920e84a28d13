import SwitchboardAdmission
import SwitchboardChat
import SwitchboardChatCore
import SwitchboardHTTP
import SwitchboardLoop
import SwitchboardMetrics
import SwitchboardReaders

/// Serves HTTP/1.1 on one connection until it closes or upgrades to
/// WebSocket: parsing, pipelining, keep-alive and timeouts. What each path
/// answers is `Routes`'.
final class HTTPConnectionHandler: ConnectionHandler, GracefulShutdown, ConnectionPreambleReader {
    private let context: ServerContext
    private var parser: HTTPRequestParser
    private var awaitingRequestStart = true
    private var shuttingDown = false
    /// A request is being answered by the reader pool; input waits in `held`.
    private var awaitingResponse = false
    private var held: [UInt8] = []
    /// The peer half-closed while an answer was pending: close once it is sent.
    private var closeWhenAnswered = false
    /// The route of the request being answered, for the request counter;
    /// back to `.other` after each response, so that a later refusal on the
    /// same connection (a malformed request, a 408) is not counted under it.
    private var route: HTTPRoute = .other
    /// The peer is a trusted proxy and has not yet said who the client is:
    /// a PROXY header (its first bytes, before TLS if any) or the first
    /// request's X-Forwarded-For will, and the client is counted then.
    private var clientPending: Bool
    /// A refusal of a TLS connection is the close alone (nothing can be
    /// written before the handshake).
    private let tls: Bool

    init(context: ServerContext, viaTrustedProxy: Bool = false, tls: Bool = false) {
        self.context = context
        parser = HTTPRequestParser(limits: context.httpLimits)
        clientPending = viaTrustedProxy
        self.tls = tls
    }

    /// Arms the header-arrival timeout: a client must send a whole request
    /// head within it (slowloris defence).
    func start(on connection: Connection) {
        if clientPending { connection.preambleReader = self }
        connection.setTimer(afterMilliseconds: context.headerTimeoutMilliseconds)
    }

    func received(_ bytes: UnsafeMutableRawBufferPointer, on connection: Connection) {
        if awaitingResponse {
            hold(UnsafeRawBufferPointer(bytes), on: connection)
            return
        }
        var offset = 0
        while offset < bytes.count, connection.isOpen, connection.handler === self {
            if awaitingRequestStart {
                awaitingRequestStart = false
                connection.setTimer(afterMilliseconds: context.headerTimeoutMilliseconds)
            }
            let (consumed, result) = parser.parse(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            offset += consumed
            switch result {
            case .needMore:
                if consumed == 0 { return }
            case .failure(let status):
                let code = status == .payloadTooLarge ? "too_large" : "bad_request"
                respondAndClose(.error(status, code: code, message: status.reason), on: connection)
                return
            case .request(let request):
                awaitingRequestStart = true
                let rest = UnsafeMutableRawBufferPointer(rebasing: bytes[offset...])
                handle(request, leftover: rest, on: connection)
                if connection.handler !== self { return }  // upgraded: the rest was handed over
                if awaitingResponse {
                    // Pipelined requests wait until this one is answered, in order.
                    hold(UnsafeRawBufferPointer(rest), on: connection)
                    return
                }
            }
        }
    }

    func timerFired(on connection: Connection) {
        if awaitingResponse {
            connection.setTimer(afterMilliseconds: context.headerTimeoutMilliseconds)
            return
        }
        if parser.hasPartialRequest {
            respondAndClose(
                .error(.requestTimeout, code: "bad_request", message: "request head not received in time"),
                on: connection)
        } else {
            connection.closeAfterFlush()  // idle keep-alive connection
        }
    }

    func peerClosed(on connection: Connection) {
        // A half-closed client still reads: a pending answer is sent first.
        if awaitingResponse {
            closeWhenAnswered = true
        } else {
            connection.closeAfterFlush()
        }
    }

    func closed(_ connection: Connection) {}

    /// A pending answer or a partly received request is finished first, and
    /// the connection closes after that response (`respond` sees
    /// `shuttingDown`); the server's grace period bounds the wait.
    func beginShutdown(on connection: Connection) {
        shuttingDown = true
        if !awaitingResponse && !parser.hasPartialRequest { connection.closeAfterFlush() }
    }

    /// A trusted proxy's connection may start with a PROXY protocol header.
    func readPreamble(_ bytes: UnsafeRawBufferPointer, on connection: Connection) -> PreambleOutcome {
        switch ProxyProtocol.parse(bytes) {
        case .needMore:
            return .needMore
        case .absent:
            return .done(0)
        case .invalid:
            refuseProxyHeader(on: connection)
            return .done(0)
        case .header(let source, let length):
            identifyClient(source, answerable: !tls, on: connection)
            return .done(length)
        }
    }

    private func refuseProxyHeader(on connection: Connection) {
        clientPending = false
        if tls {
            connection.closeAfterFlush()
            return
        }
        respondAndClose(.error(.badRequest, code: "bad_request", message: "malformed PROXY header"), on: connection)
    }

    /// The client a trusted proxy named (nil: its own connection, a health
    /// check): counted against the per-address limits from now on.
    private func identifyClient(_ client: IPAddress?, answerable: Bool = true, on connection: Connection) {
        clientPending = false
        guard let client else { return }
        switch context.admission.admitForwarded(client: client, nowMilliseconds: connection.loop.now) {
        case .admit(let ticket, _):
            connection.closeObserver = ticket
        case .refuse(let reason, let response):
            context.admission.count(reason)
            context.metrics.recordHTTPRequest(route: .other, status: reason == .maxConnections ? 503 : 429)
            route = .other
            // Before a TLS handshake (a PROXY header) only the close can be sent.
            if answerable { connection.write(response) }
            connection.closeAfterFlush()
        }
    }

    private func handle(_ request: HTTPRequest, leftover: UnsafeMutableRawBufferPointer, on connection: Connection) {
        if clientPending {
            let forwarded = request.headers.values("X-Forwarded-For")
            identifyClient(
                forwarded.isEmpty
                    ? nil : ForwardedFor.client(forwarded, trusted: context.admission.trustedProxies),
                on: connection)
            if !connection.isOpen { return }
        }
        switch context.router.match(method: request.method, path: request.path) {
        case .notFound:
            route = .other
            respond(.error(.notFound, code: "not_found", message: "no such path"), to: request, on: connection)
        case .methodNotAllowed(let allowed):
            route = .other
            var response = HTTPResponse.error(.methodNotAllowed, code: "bad_request", message: "method not allowed")
            response.headers.append(("Allow", allowed.map(\.name).joined(separator: ", ")))
            respond(response, to: request, on: connection)
        case .found(let found, let parameters):
            route = found
            let answer = Routes.answer(
                found, request, parameters: parameters, context: context, loop: connection.loop)
            carryOut(answer, for: request, leftover: leftover, on: connection)
        }
    }

    private func carryOut(
        _ answer: HTTPAnswer, for request: HTTPRequest, leftover: UnsafeMutableRawBufferPointer,
        on connection: Connection
    ) {
        switch answer {
        case .now(let response):
            respond(response, to: request, on: connection)
        case .later(let job):
            answerLater(job, to: request, on: connection)
        case .upgrade(let configuration, let application):
            if let refusal = WebSocketUpgrade.perform(
                request, configuration: configuration, application: application, leftover: leftover,
                on: connection, context: context)
            {
                respondAndClose(refusal, on: connection)
            } else {
                context.metrics.recordHTTPRequest(route: route, status: 101)
            }
        }
    }

    /// Runs `job` on the reader pool and sends its answer when it comes back;
    /// meanwhile this connection reads on but holds its input.
    private func answerLater(
        _ job: @escaping @Sendable (ChatQueries) -> HTTPResponse, to request: HTTPRequest, on connection: Connection
    ) {
        guard let chat = context.chat else {
            respond(.noDatabase, to: request, on: connection)
            return
        }
        awaitingResponse = true
        let waiting = LoopBound((self, connection))
        let loop = LoopHandoff(index: connection.loop.index, loop: connection.loop, logger: context.logger)
        let submitted = chat.readers.run(job, thenOn: loop) { response in
            let (handler, connection) = waiting.value
            handler.finish(response, to: request, on: connection)
        }
        if !submitted {
            awaitingResponse = false
            respond(
                .api(ChatError(.overloaded, "too many requests in flight; retry later")), to: request, on: connection)
        }
    }

    private func finish(_ response: HTTPResponse, to request: HTTPRequest, on connection: Connection) {
        awaitingResponse = false
        guard connection.isOpen, connection.handler === self else { return }
        respond(response, to: request, on: connection)
        if !held.isEmpty, connection.isOpen {
            var pending: [UInt8] = []
            swap(&pending, &held)
            pending.withUnsafeMutableBytes { received($0, on: connection) }
        }
        // The peer closed meanwhile and everything it sent is answered: close
        // now, as `peerClosed` would have. (A held request may have upgraded
        // the connection; its new handler learns of the close the same way.)
        if closeWhenAnswered, !awaitingResponse, connection.isOpen {
            connection.handler?.peerClosed(on: connection)
        }
    }

    private func hold(_ bytes: UnsafeRawBufferPointer, on connection: Connection) {
        guard !bytes.isEmpty else { return }
        // One more whole request at most; a client that sends more without reading is cut off.
        let limit = context.httpLimits.maxHeaderBytes + context.httpLimits.maxBodyBytes + 8192
        guard held.count + bytes.count <= limit else {
            connection.closeNow()
            return
        }
        held.append(contentsOf: bytes)
    }

    private func respond(_ response: HTTPResponse, to request: HTTPRequest, on connection: Connection) {
        var response = response
        if route.isAPI { CORS.allow(&response, for: request, allowedOrigins: context.allowedOrigins) }
        context.metrics.recordHTTPRequest(route: route, status: response.status.code)
        route = .other
        let keepAlive = request.keepAlive && !shuttingDown
        connection.write(response.serialize(keepAlive: keepAlive, headOnly: request.method == .head))
        if keepAlive {
            connection.setTimer(afterMilliseconds: context.keepAliveTimeoutMilliseconds)
        } else {
            connection.closeAfterFlush()
        }
    }

    private func respondAndClose(_ response: HTTPResponse, on connection: Connection) {
        context.metrics.recordHTTPRequest(route: route, status: response.status.code)
        route = .other
        connection.write(response.serialize(keepAlive: false))
        connection.closeAfterFlush()
    }
}

/// Handlers that can end their connection politely when the gateway stops.
protocol GracefulShutdown: AnyObject {
    func beginShutdown(on connection: Connection)
}
