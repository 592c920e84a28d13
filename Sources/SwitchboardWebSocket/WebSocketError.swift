/// A reason to fail the WebSocket connection (RFC 6455 7.1.7), carrying the
/// close code the session sends before closing.
public struct WebSocketError: Error, Equatable, Sendable {
    public let closeCode: UInt16
    public let reason: String

    public init(closeCode: UInt16, reason: String) {
        self.closeCode = closeCode
        self.reason = reason
    }

    /// 1002: the peer broke a framing rule.
    public static func protocolError(_ reason: String) -> WebSocketError {
        WebSocketError(closeCode: 1002, reason: reason)
    }

    /// 1007: text that is not UTF-8, or a compressed message that does not inflate.
    public static func invalidData(_ reason: String) -> WebSocketError {
        WebSocketError(closeCode: 1007, reason: reason)
    }

    /// 1009: a message or frame over the configured limit.
    public static let messageTooBig = WebSocketError(closeCode: 1009, reason: "message too big")

    /// 1011: an internal failure (zlib could not allocate, for instance).
    public static func internalError(_ reason: String) -> WebSocketError {
        WebSocketError(closeCode: 1011, reason: reason)
    }
}
