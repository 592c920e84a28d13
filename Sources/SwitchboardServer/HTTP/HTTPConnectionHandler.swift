import SwitchboardHTTP
import SwitchboardIO
import SwitchboardMetrics

/// Serves HTTP/1.1 on one connection until it closes or upgrades to
/// WebSocket: parsing, pipelining, keep-alive and timeouts. What each path
/// answers is `Routes`'. Generic over the connection so that tests can run
/// it over an in-memory one (`ConnectionIO`).
final class HTTPConnectionHandler<IO: ConnectionIO>: ConnectionHandler, GracefulShutdown {
    let context: ServerContext
    private var parser: HTTPRequestParser
    private var awaitingRequestStart = true
    private var shuttingDown = false
    /// A request is being answered by the reader pool; input waits in `held`.
    var awaitingResponse = false
    var held: [UInt8] = []
    /// The peer half-closed while an answer was pending: close once it is sent.
    var closeWhenAnswered = false
    /// The route of the request being answered, for the request counter;
    /// back to `.other` after each response, so that a later refusal on the
    /// same connection (a malformed request, a 408) is not counted under it.
    var route: HTTPRoute = .other
    /// The peer is a trusted proxy: the client behind it is still to be named.
    private let proxied: ProxiedClient<IO>?

    init(context: ServerContext, viaTrustedProxy: Bool = false, tls: Bool = false) {
        self.context = context
        parser = HTTPRequestParser(limits: context.httpLimits)
        proxied = viaTrustedProxy ? ProxiedClient(context: context, tls: tls) : nil
    }

    /// Arms the header-arrival timeout: a client must send a whole request
    /// head within it (slowloris defence).
    func start(on connection: IO) {
        if let proxied { connection.preambleReader = proxied }
        connection.setTimer(afterMilliseconds: context.headerTimeoutMilliseconds)
    }

    func received(_ bytes: UnsafeMutableRawBufferPointer, on connection: IO) {
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
            case .head, .body, .end:
                preconditionFailure("no route streams its body yet")
            }
        }
    }

    func timerFired(on connection: IO) {
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

    func peerClosed(on connection: IO) {
        // A half-closed client still reads: a pending answer is sent first.
        if awaitingResponse {
            closeWhenAnswered = true
        } else {
            connection.closeAfterFlush()
        }
    }

    func closed(_ connection: IO) {}

    /// A pending answer or a partly received request is finished first, and
    /// the connection closes after that response (`respond` sees
    /// `shuttingDown`); the server's grace period bounds the wait.
    func beginShutdown(on connection: IO) {
        shuttingDown = true
        if !awaitingResponse && !parser.hasPartialRequest { connection.closeAfterFlush() }
    }

    private func handle(_ request: HTTPRequest, leftover: UnsafeMutableRawBufferPointer, on connection: IO) {
        if let proxied, proxied.pending {
            proxied.identify(from: request, on: connection)
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

    func respond(_ response: HTTPResponse, to request: HTTPRequest, on connection: IO) {
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

    func respondAndClose(_ response: HTTPResponse, on connection: IO) {
        context.metrics.recordHTTPRequest(route: route, status: response.status.code)
        route = .other
        connection.write(response.serialize(keepAlive: false))
        connection.closeAfterFlush()
    }
}
