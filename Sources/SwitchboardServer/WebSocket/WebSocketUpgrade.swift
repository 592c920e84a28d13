import SwitchboardHTTP
import SwitchboardIO
import SwitchboardWebSocket

/// The switch from HTTP to WebSocket on one connection (RFC 6455 4.2).
enum WebSocketUpgrade {
    /// Checks the handshake of `request`. On success writes the 101 answer,
    /// hands the connection to a `WebSocketConnectionHandler` running
    /// `application`, feeds it `leftover` (bytes that followed the request),
    /// and returns nil; otherwise returns the refusal to send.
    static func perform<IO: ConnectionIO>(
        _ request: HTTPRequest, configuration: WebSocketConfiguration, application: WebSocketApplication,
        leftover: UnsafeMutableRawBufferPointer, on connection: IO, context: ServerContext
    ) -> HTTPResponse? {
        let outcome = WebSocketHandshake.accept(
            method: request.method.name, isHTTP11: request.version == .http11, header: { request.headers.first($0) },
            allowedOrigins: context.allowedOrigins, deflate: context.deflate)
        switch outcome {
        case .failure(let failure):
            var response = HTTPResponse.error(
                status(failure.status), code: failure.status == 403 ? "forbidden" : "bad_request",
                message: failure.message)
            response.headers.append(contentsOf: failure.extraHeaders)
            return response
        case .success(let accept):
            let session = WebSocketSession(
                configuration: configuration, deflate: accept.deflate, deflateConfiguration: context.deflate,
                sharedDeflaters: context.deflaters(forLoop: connection.loop.index))
            connection.write(accept.responseHead)
            // The backlog limit exists to cut off slow readers, not to make a
            // legal message unsendable: always leave room for one whole message.
            connection.maxOutboundBytes = max(
                context.configuration.maxOutboundBytes, configuration.maxMessageBytes + FrameEncoder.maxHeaderLength)
            // And keep the kernel from holding megabytes more beside it.
            if context.configuration.kernelSendBufferBytes > 0 {
                connection.limitKernelSendBuffer(toBytes: context.configuration.kernelSendBufferBytes)
            }
            let handler = WebSocketConnectionHandler<IO>(session: session, application: application, context: context)
            connection.handler = handler
            connection.leavePriority()
            handler.start(on: connection)
            if leftover.count > 0 { handler.received(leftover, on: connection) }
            return nil
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
}
