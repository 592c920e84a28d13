import SwitchboardChat
import SwitchboardHTTP
import SwitchboardLoop
import SwitchboardMetrics
import SwitchboardReaders
import SwitchboardStore
import SwitchboardWebSocket

/// Serves HTTP/1.1 on one connection until it closes or upgrades to WebSocket.
final class HTTPConnectionHandler: ConnectionHandler, GracefulShutdown {
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

    init(context: ServerContext) {
        self.context = context
        parser = HTTPRequestParser(limits: context.httpLimits)
    }

    /// Arms the header-arrival timeout: a client must send a whole request
    /// head within it (slowloris defence).
    func start(on connection: Connection) {
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
                respondAndClose(
                    HTTPResponse.error(status, code: errorCode(for: status), message: status.reason), on: connection)
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

    private func handle(_ request: HTTPRequest, leftover: UnsafeMutableRawBufferPointer, on connection: Connection) {
        let headOnly = request.method == .head
        route = .other
        switch context.router.match(method: request.method, path: request.path) {
        case .notFound:
            respond(.error(.notFound, code: "not_found", message: "no such path"), to: request, on: connection)
        case .methodNotAllowed(let allowed):
            var response = HTTPResponse.error(.methodNotAllowed, code: "bad_request", message: "method not allowed")
            response.headers.append(("Allow", allowed.map(\.name).joined(separator: ", ")))
            respond(response, to: request, on: connection)
        case .found(let found, let parameters):
            route = Self.metricsRoute(found)
            switch found {
            case .health:
                respond(.json(.ok, #"{"status":"ok"}"#), to: request, on: connection, headOnly: headOnly)
            case .echo:
                upgrade(
                    request, configuration: context.echoWebSocket, application: EchoApplication(),
                    leftover: leftover, on: connection)
            case .metrics:
                var response = HTTPResponse(status: .ok, body: context.metrics.render())
                response.headers.append(("Content-Type", GatewayMetrics.contentType))
                respond(response, to: request, on: connection, headOnly: headOnly)
            case .ready:
                answer(readiness(), to: request, on: connection)
            case .conversations, .sessionMessages, .sessionPatch, .sessionDelete, .analytics:
                // These routes exist only with a database (ServerContext), so
                // this guard is a safety net, not a code path.
                guard let chat = context.chat else {
                    respond(Self.noDatabase, to: request, on: connection)
                    return
                }
                answer(
                    AdminAPI(chat: chat).handle(found, request, parameters: parameters), to: request, on: connection)
            case .chat:
                guard let chat = context.chat else {
                    respond(Self.noDatabase, to: request, on: connection)
                    return
                }
                upgrade(
                    request, configuration: context.chatWebSocket,
                    application: ChatConnection(hub: chat.hubs[connection.loop.index]), leftover: leftover,
                    on: connection)
            }
        }
    }

    /// Sends an API answer now, or runs its job on the reader pool and sends
    /// the answer when it comes back (this connection reads nothing meanwhile).
    private func answer(_ result: APIResult, to request: HTTPRequest, on connection: Connection) {
        switch result {
        case .now(let response):
            respond(response, to: request, on: connection, headOnly: request.method == .head)
        case .later(let job):
            guard let chat = context.chat else {
                respond(Self.noDatabase, to: request, on: connection)
                return
            }
            awaitingResponse = true
            let waiting = LoopBound((self, connection))
            let loopIndex = connection.loop.index
            let submitted = chat.readers.submit { queries in
                let response = job(queries)
                chat.post(toLoop: loopIndex) {
                    let (handler, connection) = waiting.value
                    handler.finish(response, to: request, on: connection)
                }
            }
            if !submitted {
                awaitingResponse = false
                respond(
                    .api(ChatError(.overloaded, "too many requests in flight; retry later")), to: request,
                    on: connection)
            }
        }
    }

    private func finish(_ response: HTTPResponse, to request: HTTPRequest, on connection: Connection) {
        awaitingResponse = false
        guard connection.isOpen, connection.handler === self else { return }
        respond(response, to: request, on: connection, headOnly: request.method == .head)
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

    /// GET /readyz: the database answers and its schema is the one this build expects.
    private func readiness() -> APIResult {
        guard context.chat != nil else { return .now(Self.noDatabase) }
        let expected = Migrations.all.last?.version ?? 0
        let logger = context.logger
        return .later { queries in
            do throws(QueryError) {
                guard let version = try queries.appliedSchemaVersion() else {
                    return .api(ChatError(.unavailable, "the database has no schema; run switchboard migrate up"))
                }
                guard version == expected else {
                    return .api(
                        ChatError(
                            .unavailable, "the database schema is at version \(version); this build expects \(expected)"
                        ))
                }
                return .json(.ok, #"{"status":"ready","schema_version":\#(version)}"#)
            } catch {
                // The detail (libpq's message: host, port, user) goes to the
                // log, not to this unauthenticated endpoint.
                logger.warning("readiness check failed: \(error)")
                switch error {
                case .unavailable: return .api(ChatError(.unavailable, "the database is unreachable; retry later"))
                case .failed, .invalidCursor:
                    return .api(ChatError(.unavailable, "the readiness check could not be completed; retry later"))
                }
            }
        }
    }

    private func upgrade(
        _ request: HTTPRequest, configuration: WebSocketConfiguration, application: WebSocketApplication,
        leftover: UnsafeMutableRawBufferPointer, on connection: Connection
    ) {
        let outcome = WebSocketHandshake.accept(
            method: request.method.name, isHTTP11: request.version == .http11, header: { request.headers.first($0) },
            allowedOrigins: context.configuration.allowedOrigins, deflate: context.deflate)
        switch outcome {
        case .failure(let failure):
            var response = HTTPResponse.error(
                Self.status(failure.status), code: failure.status == 403 ? "forbidden" : "bad_request",
                message: failure.message)
            response.headers.append(contentsOf: failure.extraHeaders)
            respondAndClose(response, on: connection)
        case .success(let accept):
            let session: WebSocketSession
            do {
                session = try WebSocketSession(
                    configuration: configuration, deflate: accept.deflate, deflateConfiguration: context.deflate,
                    sharedDeflaters: context.deflaters(forLoop: connection.loop.index))
            } catch {
                respondAndClose(
                    .error(.internalServerError, code: "unavailable", message: "cannot start session"),
                    on: connection)
                return
            }
            context.metrics.recordHTTPRequest(route: route, status: 101)
            connection.write(accept.responseHead)
            // The backlog limit exists to cut off slow readers, not to make a
            // legal message unsendable: always leave room for one whole message.
            connection.maxOutboundBytes = max(
                context.configuration.maxOutboundBytes, configuration.maxMessageBytes + FrameEncoder.maxHeaderLength)
            let handler = WebSocketConnectionHandler(session: session, application: application, context: context)
            connection.handler = handler
            handler.start(on: connection)
            if leftover.count > 0 { handler.received(leftover, on: connection) }
        }
    }

    private func respond(
        _ response: HTTPResponse, to request: HTTPRequest, on connection: Connection, headOnly: Bool = false
    ) {
        context.metrics.recordHTTPRequest(route: route, status: response.status.code)
        route = .other
        let keepAlive = request.keepAlive && !shuttingDown
        connection.write(response.serialize(keepAlive: keepAlive, headOnly: headOnly))
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

    private static let noDatabase = HTTPResponse.api(ChatError(.unavailable, "no database is configured"))

    private static func metricsRoute(_ route: Route) -> HTTPRoute {
        switch route {
        case .health: .healthz
        case .ready: .readyz
        case .metrics: .metrics
        case .echo: .echo
        case .chat: .ws
        case .conversations: .conversations
        case .sessionMessages: .messages
        case .sessionPatch: .sessionPatch
        case .sessionDelete: .sessionDelete
        case .analytics: .analytics
        }
    }

    private static func status(_ code: Int) -> HTTPStatus {
        switch code {
        case 403: .forbidden
        case 405: .methodNotAllowed
        case 426: .upgradeRequired
        default: .badRequest
        }
    }

    private func errorCode(for status: HTTPStatus) -> String {
        switch status.code {
        case 413: "too_large"
        default: "bad_request"
        }
    }
}

/// Handlers that can end their connection politely when the gateway stops.
protocol GracefulShutdown: AnyObject {
    func beginShutdown(on connection: Connection)
}
