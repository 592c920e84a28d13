import SwitchboardIO

/// Handlers that can end their connection politely when the gateway stops.
protocol GracefulShutdown<IO>: AnyObject {
    associatedtype IO: ConnectionIO
    func beginShutdown(on connection: IO)
}

/// What the gateway tells each open connection when it stops (`Server.shutdown`;
/// tests send it to in-memory connections).
enum GracefulShutdownRequest {
    /// Its handler's polite end (WebSocket: 1001), or a close once what is queued is sent.
    static func send<IO: ConnectionIO>(to connection: IO) {
        if let handler = connection.handler as? any GracefulShutdown<IO> {
            handler.beginShutdown(on: connection)
        } else {
            connection.closeAfterFlush()
        }
    }
}
