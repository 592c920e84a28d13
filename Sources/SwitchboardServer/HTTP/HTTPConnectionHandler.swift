import SwitchboardHTTP
import SwitchboardLoop
import SwitchboardWebSocket

/// Serves HTTP/1.1 on one connection until it closes or upgrades to WebSocket.
final class HTTPConnectionHandler: ConnectionHandler, GracefulShutdown {
    private let context: ServerContext
    private var parser: HTTPRequestParser
    private var awaitingRequestStart = true
    private var shuttingDown = false

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
            }
        }
    }

    func timerFired(on connection: Connection) {
        if parser.hasPartialRequest {
            respondAndClose(
                .error(.requestTimeout, code: "bad_request", message: "request head not received in time"),
                on: connection)
        } else {
            connection.closeAfterFlush()  // idle keep-alive connection
        }
    }

    func peerClosed(on connection: Connection) {
        connection.closeAfterFlush()
    }

    func closed(_ connection: Connection) {}

    func beginShutdown(on connection: Connection) {
        shuttingDown = true
        if !parser.hasPartialRequest { connection.closeAfterFlush() }
    }

    private func handle(_ request: HTTPRequest, leftover: UnsafeMutableRawBufferPointer, on connection: Connection) {
        let headOnly = request.method == .head
        switch context.router.match(method: request.method, path: request.path) {
        case .notFound:
            respond(.error(.notFound, code: "not_found", message: "no such path"), to: request, on: connection)
        case .methodNotAllowed(let allowed):
            var response = HTTPResponse.error(.methodNotAllowed, code: "bad_request", message: "method not allowed")
            response.headers.append(("Allow", allowed.map(\.name).joined(separator: ", ")))
            respond(response, to: request, on: connection)
        case .found(let route, _):
            switch route {
            case .health:
                respond(.json(.ok, #"{"status":"ok"}"#), to: request, on: connection, headOnly: headOnly)
            case .echo:
                upgrade(
                    request, configuration: context.echoWebSocket, application: EchoApplication(),
                    leftover: leftover, on: connection)
            case .chat:
                guard let chat = context.chat else { return }
                upgrade(
                    request, configuration: context.chatWebSocket,
                    application: ChatConnection(hub: chat.hubs[connection.loop.index]), leftover: leftover,
                    on: connection)
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
                    configuration: configuration, deflate: accept.deflate, deflateConfiguration: context.deflate)
            } catch {
                respondAndClose(
                    .error(.internalServerError, code: "unavailable", message: "cannot start session"),
                    on: connection)
                return
            }
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
        let keepAlive = request.keepAlive && !shuttingDown
        connection.write(response.serialize(keepAlive: keepAlive, headOnly: headOnly))
        if keepAlive {
            connection.setTimer(afterMilliseconds: context.keepAliveTimeoutMilliseconds)
        } else {
            connection.closeAfterFlush()
        }
    }

    private func respondAndClose(_ response: HTTPResponse, on connection: Connection) {
        connection.write(response.serialize(keepAlive: false))
        connection.closeAfterFlush()
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
