import SwitchboardAdmission
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
    let proxied: ProxiedClient<IO>?
    /// The socket's peer (nil when unknown).
    private let peer: IPAddress?

    /// The upload whose body this connection is receiving or whose answer it awaits.
    var upload: UploadStream<IO>?
    /// The head of that upload, answered when it ends.
    var uploadHead: HTTPRequest?
    /// The upload's window is full: reading is paused and the rest of the last
    /// read waits in `held` until storage takes more.
    var waitingForStorage = false
    /// The download being written, while `awaitingResponse`.
    var download: DownloadStream<IO>?
    /// This connection's upload rate (`attachments.uploads_per_minute`), made at its first upload.
    var uploadRate: TokenBucket?
    /// Whether the connection stays open after the download being written.
    var downloadKeepsAlive = false

    init(context: ServerContext, viaTrustedProxy: Bool = false, tls: Bool = false, peer: IPAddress? = nil) {
        self.context = context
        self.peer = peer
        parser = HTTPRequestParser(limits: context.httpLimits)
        parser.streamedBodyLimit = context.streamedBodyLimit
        proxied = viaTrustedProxy ? ProxiedClient(context: context, tls: tls) : nil
    }

    /// The client's address: the one a trusted proxy named, else the peer's.
    var clientAddress: IPAddress? { proxied?.client ?? peer }

    /// Arms the header-arrival timeout: a client must send a whole request
    /// head within it (slowloris defence).
    func start(on connection: IO) {
        if let proxied { connection.preambleReader = proxied }
        connection.setTimer(afterMilliseconds: context.headerTimeoutMilliseconds)
    }

    func received(_ bytes: UnsafeMutableRawBufferPointer, on connection: IO) {
        if awaitingResponse || waitingForStorage {
            hold(UnsafeRawBufferPointer(bytes), on: connection)
            return
        }
        var offset = 0
        while offset < bytes.count || parser.isBodyEndPending, connection.isOpen, connection.handler === self {
            if awaitingRequestStart {
                awaitingRequestStart = false
                connection.setTimer(afterMilliseconds: context.headerTimeoutMilliseconds)
            }
            // An upload's body goes no faster than its window takes it: the rest
            // of this read waits, and the socket is not read, until storage catches up.
            var end = bytes.count
            if let upload, upload.isReceiving {
                if upload.room == 0 && !parser.isBodyEndPending {
                    waitForStorage(UnsafeRawBufferPointer(rebasing: bytes[offset...]), on: connection)
                    return
                }
                end = min(end, offset + upload.room)
            }
            let input = UnsafeRawBufferPointer(rebasing: bytes[offset..<end])
            let (consumed, result) = parser.parse(input)
            offset += consumed
            switch result {
            case .needMore:
                if consumed == 0 { return }
            case .failure(let status):
                failed(status, on: connection)
                return
            case .head(let head, let body):
                startUpload(head, body: body, on: connection)
            case .body(let range):
                guard let upload else { continue }
                upload.receive(UnsafeRawBufferPointer(rebasing: input[range]))
                guard upload.isReceiving else { continue }  // refused: the connection is closing
                // An idle timeout per piece, not a deadline for the whole body.
                connection.setTimer(afterMilliseconds: context.headerTimeoutMilliseconds)
                // A full window stops reading at once (the body's end is still taken:
                // storage may keep a short last piece until the upload finishes).
                if upload.room == 0 && !parser.isBodyEndPending {
                    waitForStorage(UnsafeRawBufferPointer(rebasing: bytes[offset...]), on: connection)
                    return
                }
            case .end:
                awaitingRequestStart = true
                guard let upload else { continue }
                awaitingResponse = true
                upload.bodyEnded()
                if awaitingResponse {
                    hold(UnsafeRawBufferPointer(rebasing: bytes[offset...]), on: connection)
                    return
                }
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

    /// The parser refused the request: answered, and the connection closed, since
    /// what follows can no longer be framed. An upload under way is abandoned.
    private func failed(_ status: HTTPStatus, on connection: IO) {
        let code = status == .payloadTooLarge ? "too_large" : "bad_request"
        var response = HTTPResponse.error(status, code: code, message: status.reason)
        let outcome: AttachmentUploadOutcome = status == .payloadTooLarge ? .tooLarge : .badRequest
        if let upload {
            upload.abandon(outcome)
            self.upload = nil
            if let head = uploadHead { CORS.allow(&response, for: head, allowedOrigins: context.allowedOrigins) }
        } else if let head = parser.headSoFar(),
            case .found(let found, _) = context.router.match(
                method: head.method, path: head.path), found == .attachmentUpload
        {
            // An upload refused with its head (a Content-Length over attachments.max_bytes).
            route = found
            context.metrics.attachmentUploads(outcome).increment()
            CORS.allow(&response, for: head, allowedOrigins: context.allowedOrigins)
        }
        respondAndClose(response, on: connection)
    }

    func timerFired(on connection: IO) {
        if let upload, upload.isReceiving {
            if upload.isWaitingForStorage {
                connection.setTimer(afterMilliseconds: context.headerTimeoutMilliseconds)
            } else {
                // The client stopped sending mid-body.
                upload.abandon(.aborted)
                self.upload = nil
                respondAndClose(
                    .error(.requestTimeout, code: "bad_request", message: "the upload's body stalled"), on: connection)
            }
            return
        }
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
        if let upload, upload.isReceiving {
            // The body can no longer be complete.
            upload.abandon(.aborted)
            self.upload = nil
            connection.closeAfterFlush()
            return
        }
        // A half-closed client still reads: a pending answer is sent first.
        if awaitingResponse {
            closeWhenAnswered = true
        } else {
            connection.closeAfterFlush()
        }
    }

    func closed(_ connection: IO) {
        upload?.abandon(.aborted)
        upload = nil
        download?.stop()
        download = nil
    }

    func outboundDrained(on connection: IO) {
        download?.drained()
    }

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
        endResponse(keepAlive: beginResponse(response, to: request, on: connection), on: connection)
    }

    /// Writes `response` (with `streamedLength`, only its head, stating that
    /// length: the body follows in pieces); returns whether the connection
    /// stays open after it.
    func beginResponse(
        _ response: HTTPResponse, to request: HTTPRequest, streamedLength: Int64? = nil, on connection: IO
    ) -> Bool {
        var response = response
        if route.isAPI { CORS.allow(&response, for: request, allowedOrigins: context.allowedOrigins) }
        context.metrics.recordHTTPRequest(route: route, status: response.status.code)
        route = .other
        let keepAlive = request.keepAlive && !shuttingDown
        if let streamedLength {
            connection.write(response.serializeHead(keepAlive: keepAlive, contentLength: streamedLength))
        } else {
            connection.write(response.serialize(keepAlive: keepAlive, headOnly: request.method == .head))
        }
        return keepAlive
    }

    /// After the last byte of a response: wait for the next request, or close.
    func endResponse(keepAlive: Bool, on connection: IO) {
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
