import SwitchboardAdmission
import SwitchboardHTTP
import SwitchboardIO

/// The client behind a trusted proxy (docs/limits.md): named by a PROXY
/// header, the connection's first bytes (before TLS, if any), or else by the
/// first request's `X-Forwarded-For`, and counted against the per-address
/// limits from then on. The connection's preamble stage; the HTTP handler
/// asks it about the first request only while the client is still unknown.
final class ProxiedClient<IO: ConnectionIO>: ConnectionPreambleReader {
    private let context: ServerContext
    /// A refusal of a TLS connection's PROXY header is the close alone
    /// (nothing can be written before the handshake).
    private let tls: Bool
    /// Nobody has named the client yet.
    private(set) var pending = true
    /// The client the proxy named (nil: none yet, or the proxy's own requests).
    private(set) var client: IPAddress?

    init(context: ServerContext, tls: Bool) {
        self.context = context
        self.tls = tls
    }

    func readPreamble(_ bytes: UnsafeRawBufferPointer, on connection: IO) -> PreambleOutcome {
        switch ProxyProtocol.parse(bytes) {
        case .needMore:
            return .needMore
        case .absent:
            return .done(0)
        case .invalid:
            pending = false
            if tls {
                connection.closeAfterFlush()
            } else {
                let response = HTTPResponse.error(.badRequest, code: "bad_request", message: "malformed PROXY header")
                refuse(response.serialize(keepAlive: false), status: 400, answerable: true, on: connection)
            }
            return .done(0)
        case .header(let source, let length):
            admit(source, answerable: !tls, on: connection)
            return .done(length)
        }
    }

    /// The first request of a connection whose PROXY header named nobody:
    /// its `X-Forwarded-For`, if any (without one it is the proxy's own
    /// request, a health check). May refuse and close the connection.
    func identify(from request: HTTPRequest, on connection: IO) {
        let forwarded = request.headers.values("X-Forwarded-For")
        admit(
            forwarded.isEmpty ? nil : ForwardedFor.client(forwarded, trusted: context.admission.trustedProxies),
            on: connection)
    }

    private func admit(_ client: IPAddress?, answerable: Bool = true, on connection: IO) {
        pending = false
        guard let client else { return }
        self.client = client
        switch context.admission.admitForwarded(client: client, nowMilliseconds: connection.loop.now) {
        case .admit(let ticket, _):
            connection.closeObserver = ticket
        case .refuse(let reason, let response):
            context.admission.count(reason)
            refuse(response, status: reason == .maxConnections ? 503 : 429, answerable: answerable, on: connection)
        }
    }

    /// Counted as a request of no route, answered when it can be (not before
    /// a TLS handshake), closed.
    private func refuse(_ response: [UInt8], status: Int, answerable: Bool, on connection: IO) {
        context.metrics.recordHTTPRequest(route: .other, status: status)
        if answerable { connection.write(response) }
        connection.closeAfterFlush()
    }
}
