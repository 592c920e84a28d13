import SwitchboardHTTP
import SwitchboardReaders
import SwitchboardWebSocket

/// What a route answers; `HTTPConnectionHandler` carries it out.
enum HTTPAnswer {
    /// A response at once (validation, auth, health, metrics).
    case now(HTTPResponse)
    /// A job for the reader pool: its response is sent when it comes back,
    /// and the connection's later requests wait for it, in order.
    case later(@Sendable (ChatQueries) -> HTTPResponse)
    /// An attachment's bytes, streamed from storage as the connection drains;
    /// later requests wait for it, in order.
    case download(DownloadPlan)
    /// The upgrade to WebSocket, running `application` with `configuration`.
    case upgrade(WebSocketConfiguration, WebSocketApplication)
}
